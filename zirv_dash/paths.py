"""Filesystem locations and safe writes shared by every on-disk protocol.

Everything zirv keeps between processes lives under one *state dir*
(`ZIRV_CTX_STATE_DIR`, else the XDG state home + ``zirv/ctx``). Directories are
created private (0700) and files are written private (0600) and atomically, so
a reader in another process never sees half a file and a crash never leaves a
corrupted one behind.
"""

from __future__ import annotations

import os
import re
import stat
import time
from pathlib import Path

STATE_ENV = "ZIRV_CTX_STATE_DIR"


def state_dir() -> Path:
    """The state dir, created private if missing."""
    override = os.environ.get(STATE_ENV)
    if override:
        base = Path(override).expanduser()
    else:
        xdg = os.environ.get("XDG_STATE_HOME")
        root = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "state"
        base = root / "zirv" / "ctx"
    ensure_private_dir(base)
    return base


def operator_dir() -> Path:
    """`~/.zirv`: the operator's own configuration (never the repo's)."""
    override = os.environ.get("ZIRV_HOME")
    return Path(override).expanduser() if override else Path.home() / ".zirv"


def ensure_private_dir(path: Path) -> Path:
    """Create `path` with 0700, and every missing parent with 0700 too (a plain
    `mkdir(parents=True)` gives parents the umask's 0755); tighten `path` if it
    already exists. Parents that already existed are left as they are."""
    missing: list[Path] = []
    probe = path
    while not probe.exists() and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    for directory in reversed(missing):
        try:
            directory.mkdir(mode=0o700)
        except FileExistsError:
            if not directory.is_dir():  # a file or a dangling symlink in the way
                raise
    if not missing:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        if path.stat().st_mode & 0o077:
            path.chmod(0o700)
    except OSError:
        pass
    return path


def ensure_private_file(path: Path) -> Path:
    """Create `path` empty with 0600 if it is missing (never through a symlink),
    or tighten it to 0600, so a log handler that opens it for appending later
    never creates it world-readable under the umask."""
    ensure_private_dir(path.parent)
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(path, flags, 0o600)
    try:
        if os.fstat(fd).st_mode & 0o077:
            os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
    return path


TEMP_GRACE_SECS = 120.0
"""A temp file younger than this may still be being written by a live process."""
_TEMP_NAME = re.compile(r"^\..+\.(?:tmp|claim)-[^/]+$")


def sweep_temp_files(
    directory: Path, grace: float = TEMP_GRACE_SECS, now: float | None = None
) -> int:
    """Remove temp files a killed writer left in `directory` (`.<name>.tmp-*` from
    `atomic_write` and mail, `.<name>.claim-*` from nudge claims) once they are
    older than `grace` and no live writer holds them (`remove_if_abandoned`);
    regular files only, never through a symlink. Returns how many were removed."""
    moment = time.time() if now is None else now
    removed = 0
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for entry in entries:
        if not _TEMP_NAME.match(entry.name):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and moment - st.st_mtime >= grace:
            removed += remove_if_abandoned(Path(entry.path))
    return removed


def hold_while_writing(fd: int) -> None:
    """Mark the temp file open on `fd` as being written: an flock its writer holds
    until it closes the file (or dies), which `remove_if_abandoned` respects."""
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        pass  # no flock here: the sweeps' age rule still applies


def remove_if_abandoned(path: Path) -> bool:
    """Unlink the temp file `path` unless a live writer holds it
    (`hold_while_writing`): its lock is taken first, so a slow or stopped writer
    keeps its file however old it looks; a dead writer's lock is gone with it."""
    import fcntl

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # its writer is alive
        except OSError:
            pass  # no flock on this filesystem: the caller's age rule decides
        st = os.lstat(path)
        if (st.st_dev, st.st_ino) != (os.fstat(fd).st_dev, os.fstat(fd).st_ino):
            return False  # renamed or replaced since it was opened
        os.unlink(path)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def atomic_write(
    path: Path, data: bytes | str, mode: int = 0o600, *, private_dir: bool = True
) -> None:
    """Write `data` to `path` atomically: temp file + fsync + rename.

    The temp file lives in the same directory so the rename is atomic, and it is
    created with `mode` from the start so the content is never world-readable.
    The directory is made (and tightened to) 0700 unless `private_dir` is False:
    a file in another program's directory (a harness's settings) leaves that
    directory's permissions as they are.
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    if private_dir:
        ensure_private_dir(path.parent)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = make_temp(path.parent, f".{path.name}.tmp-")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


_TEMP_FLAGS = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_TEMP_TRIES = 100


def make_temp(directory: Path, prefix: str) -> tuple[int, Path]:
    """A new private (0600) file `<directory>/<prefix><12 random hex digits>`,
    opened read-write and held (`hold_while_writing`) until it is closed: what
    `tempfile.mkstemp` does, without importing `tempfile` (with `shutil` and
    `random`, a tenth of what `zirv ctx send` imports)."""
    for _ in range(_TEMP_TRIES):
        candidate = directory / f"{prefix}{os.urandom(6).hex()}"
        try:
            fd = os.open(candidate, _TEMP_FLAGS, 0o600)
        except FileExistsError:
            continue
        hold_while_writing(fd)  # no sweep takes it while this process writes it
        return fd, candidate
    raise FileExistsError(f"{directory}: no free temporary name after {_TEMP_TRIES} tries")


STATE_TEMP_DIRS = (
    "", "sessions", "dash", "handover", "logs", "logs/delegation-results", "escaped", "usage",
    "s", "native-panes", "native-journals", "worktrees",
)  # fmt: skip
"""State subdirectories whose writers use `atomic_write`."""
STATE_TEMP_GLOBS = (
    "mail/*", "mail/*/fanout", "mail/*/full", "mail/*/read",
    "dash/*", "dash/*/requests", "dash/*/p-*", "worktrees/*",
)  # fmt: skip
"""Their per-repository and per-dashboard directories (mailboxes, spawn
channels, worktree records): only each directory's own entries are swept, never
below (a worktree's checkout is the user's)."""


def sweep_state_temp_files(state: Path | None = None) -> int:
    """`sweep_temp_files` over every state directory that holds atomic writes;
    run at a dashboard launch so a kill's leftovers do not pile up."""
    base = state_dir() if state is None else state
    directories = [base / name if name else base for name in STATE_TEMP_DIRS]
    for pattern in STATE_TEMP_GLOBS:
        directories.extend(d for d in base.glob(pattern) if d.is_dir() and not d.is_symlink())
    return sum(sweep_temp_files(directory) for directory in directories)


def new_session_id() -> str:
    import uuid  # here, not at the top: `zirv ctx send` starts faster without it

    return str(uuid.uuid4())


def short_id(session_id: str) -> str:
    """First 8 ASCII alphanumerics of a session id (the upstream derivation)."""
    return "".join(ch for ch in session_id if ch.isascii() and ch.isalnum())[:8]


def repo_root(start: Path | None = None) -> Path:
    """The git top level containing `start`, else `start` itself (resolved)."""
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return candidate
    return here


def git_common_dir(path: Path) -> Path | None:
    """The shared `.git` directory of `path`'s repository (same for linked worktrees)."""
    import subprocess  # only the commands that ask git pay for it

    try:
        out = subprocess.run(
            ["git", "-C", str(path), "rev-parse", "--git-common-dir"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    common = Path(out.stdout.strip())
    if not common.is_absolute():
        common = path / common
    return common.resolve()


def repo_slug(repo: Path) -> str:
    """Mailbox/roster slug: the absolute path with every non-alphanumeric as `-`.

    `/work/my-repo` → `-work-my-repo`, matching upstream so both CLIs share a mailbox.
    """
    return re.sub(r"[^A-Za-z0-9]", "-", str(repo.resolve()))


def local_zirv_dir(cwd: Path | None = None) -> Path:
    return (cwd or Path.cwd()) / ".zirv"
