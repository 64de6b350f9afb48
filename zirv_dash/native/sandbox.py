"""How `run_command` is contained: the bubblewrap argv and the command's environment.

The sandbox is built from an empty root, as bubblewrap's documentation
recommends for an untrusted command, binding only what a build needs:

- read-only: `/usr`, `/bin`, `/sbin`, `/lib*` (symlinks kept as symlinks), `/etc`
  without its secrets (shadow files, sudoers, SSH host keys, private TLS keys)
  and `/opt`;
- read-write: the working directory, at its own path;
- private and empty: `/tmp` and the home directory (a tmpfs at `$HOME`, so
  `~/.ssh` and `~/.zirv/native.toml` are not there); a fresh `/dev` and `/proc`;
- nothing else: no other part of the filesystem, no network, no IPC, its own
  PID namespace and session (`--new-session`: it cannot push keys into the
  dashboard's terminal), every capability dropped (`--cap-drop ALL`: even as
  root it cannot remount the read-only binds writable), and it dies with zirv.

The environment is cleared and rebuilt from an allow-list (PATH, LANG, TERM,
HOME): a route's credential (`credential = "env:…"`) and the dashboard's
`ZIRV_CTX_*` variables never reach a command, sandboxed or not.
"""

from __future__ import annotations

import glob
import os
import shutil
from pathlib import Path

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
ETC_SECRET_FILES = (
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/etc/security/opasswd",
    "/etc/ssh/ssh_host_*key",
)
ETC_SECRET_DIRS = ("/etc/sudoers.d", "/etc/ssl/private")
HOME_SECRETS = (".ssh", ".gnupg", ".aws", ".netrc", ".docker", ".kube", ".zirv")
"""Hidden even when the working directory is the home directory itself."""
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
COMMAND_TERM = "dumb"
"""The output goes to a pipe and is shown as text: no colour, no cursor motion."""


def find_bwrap() -> str | None:
    """bubblewrap on PATH, the one lookup deciding whether commands are sandboxed."""
    return shutil.which("bwrap")


def command_env(home: str) -> dict[str, str]:
    """The environment a command gets: the allow-list only."""
    env = {
        "PATH": os.environ.get("PATH") or DEFAULT_PATH,
        "TERM": COMMAND_TERM,
        "HOME": home,
    }
    lang = os.environ.get("LANG")
    if lang:
        env["LANG"] = lang
    return env


def _within(path: Path, tree: Path) -> bool:
    return path == tree or path.is_relative_to(tree)


def _hide(path: str) -> list[str]:
    """Mount over `path` so its content cannot be read: an empty tmpfs over a
    directory, /dev/null over a file."""
    if os.path.isdir(path):
        return ["--tmpfs", path]
    return ["--ro-bind", "/dev/null", path]


def _system() -> list[str]:
    args: list[str] = []
    for place in SYSTEM_DIRS:
        if os.path.islink(place):
            args += ["--symlink", os.readlink(place), place]
        elif os.path.isdir(place):
            args += ["--ro-bind", place, place]
    for pattern in ETC_SECRET_FILES:
        for found in sorted(glob.glob(pattern)):
            if os.path.isfile(found) and not os.path.islink(found):
                args += _hide(found)
    for place in ETC_SECRET_DIRS:
        if os.path.isdir(place) and not os.path.islink(place):
            args += _hide(place)
    return args


def _secrets(home: Path, extra: tuple[Path, ...]) -> list[Path]:
    return [home / name for name in HOME_SECRETS] + list(extra)


def bwrap_argv(
    bwrap: str, root: Path, home: Path, command: str, secrets: tuple[Path, ...] = ()
) -> list[str]:
    """The argv that runs `command` with `/bin/sh -c` in the sandbox described
    above. `root` is the working directory (resolved), `home` the operator's
    home (resolved); `secrets` are further paths (zirv's operator and state
    directories) hidden wherever a bind would show them."""
    args = [bwrap, "--unshare-all", "--cap-drop", "ALL", "--die-with-parent", "--new-session"]
    args += _system()
    args += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    # The home is an empty private tmpfs at its own path (HOME points there):
    # laid before the workdir's bind when it holds the workdir, over it when the
    # workdir holds it; when it *is* the workdir only its secrets are hidden.
    if home == Path("/"):  # a service account's: a tmpfs there would cover everything
        home = Path("/tmp/home")
    home_inside = _within(home, root)
    if not home_inside:
        args += ["--tmpfs", str(home)]
    args += ["--bind", str(root), str(root)]
    if home_inside and home != root:
        args += ["--tmpfs", str(home)]
    for secret in _secrets(home, secrets):
        real = Path(os.path.realpath(secret))
        if not os.path.lexists(real) or _within(root, real):
            continue  # absent, or it holds the workdir (which must stay)
        in_root = _within(real, root)
        if in_root and home_inside and home != root and _within(real, home):
            continue  # under the home's tmpfs already
        if in_root or any(_within(real, Path(p)) for p in SYSTEM_DIRS):
            args += _hide(str(real))
    args += ["--remount-ro", "/", "--clearenv"]
    for name, value in command_env(str(home)).items():
        args += ["--setenv", name, value]
    return [*args, "--chdir", str(root), "/bin/sh", "-c", command]
