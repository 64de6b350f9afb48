"""Remote hosts: the operator's `~/.zirv/remotes.toml`, and what a host may say.

A host is a name, an ssh destination and two optional facts (an ssh config file
for `ssh -F`, the remote `zirv` when it is not on the login PATH). Only the
operator's own file holds hosts: a repository's `.zirv/` is never read for them,
so cloning a checkout can never point the dashboard at a machine.

Every field is checked before it is stored and again when it is read, because
each ends up in an `ssh` argv: a destination is never an ssh option (no leading
`-`), and nothing may carry whitespace, control characters or shell
metacharacters (the remote command is joined into a string by ssh itself).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from zirv_dash import paths, safeio

FILE_NAME = "remotes.toml"
MAX_FILE_BYTES = 64 * 1024
MAX_HOSTS = 64
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")
"""A host's name: what the roster shows and `--host` takes."""
DEST = re.compile(r"(ssh://)?([A-Za-z0-9_.+-]+@)?[A-Za-z0-9_.:\[\]%-]+(:[0-9]{1,5})?")
"""`user@host`, an alias from ~/.ssh/config, `ssh://user@host:2222`, an IPv6
literal in brackets: what `ssh` accepts as a destination, and nothing a shell or
ssh's option parser reads as anything else."""
REMOTE_PATH = re.compile(r"[A-Za-z0-9_./~+-]{1,512}")
"""The remote `zirv`: a path or a command name, without a character a remote
shell would expand or split on."""
LOCAL = "local"
"""The name of this machine's own group in the roster: no remote may take it."""


class HostError(ValueError):
    """A host that cannot be stored or used; the message says which field and why."""


@dataclass(frozen=True, slots=True)
class Host:
    name: str
    dest: str
    ssh_config: str = ""
    """A file passed to ssh as `-F` (empty: ssh's own configuration)."""
    zirv: str = "zirv"
    """The remote `zirv` command."""


def check_name(name: str) -> str:
    if name.lower() == LOCAL:
        raise HostError(f"host name {name!r} is reserved for this machine")
    if not NAME.fullmatch(name):
        raise HostError(
            f"host name {name!r}: use 1-32 letters, digits, '.', '_' or '-', starting"
            " with a letter or digit"
        )
    return name


def check_dest(dest: str) -> str:
    if dest.startswith("-"):
        raise HostError(f"destination {dest!r} starts with '-': it would be an ssh option")
    if not DEST.fullmatch(dest) or len(dest) > 255:
        raise HostError(
            f"destination {dest!r}: expected user@host, an ssh config alias or"
            " ssh://user@host:port, without spaces or shell characters"
        )
    return dest


def check_ssh_config(value: str) -> str:
    if not value:
        return value
    if "\n" in value or "\x00" in value or value.startswith("-"):
        raise HostError(f"ssh config {value!r}: not a usable file name")
    if not Path(value).is_absolute():
        raise HostError(f"ssh config {value!r}: give an absolute path")
    return value


def check_remote_zirv(value: str) -> str:
    if value.startswith("-") or not REMOTE_PATH.fullmatch(value):
        raise HostError(
            f"remote zirv {value!r}: a path or command name without spaces or shell characters"
        )
    return value


def make_host(name: str, dest: str, ssh_config: str = "", zirv: str = "zirv") -> Host:
    """A checked host; raises HostError naming the first bad field."""
    config = ssh_config
    if config and not Path(config).is_absolute():
        config = str(Path(config).expanduser().resolve())
    return Host(
        name=check_name(name),
        dest=check_dest(dest),
        ssh_config=check_ssh_config(config),
        zirv=check_remote_zirv(zirv or "zirv"),
    )


def hosts_file() -> Path:
    return paths.operator_dir() / FILE_NAME


def load() -> dict[str, Host]:
    """Every stored host by name. Raises HostError for a file that cannot be used
    (it is never rewritten then: a user's file is not ours to lose)."""
    path = hosts_file()
    try:
        doc = safeio.read_toml(path, MAX_FILE_BYTES)
    except (OSError, safeio.BadContent) as exc:
        raise HostError(f"{path}: {exc}") from exc
    if doc is None:
        return {}
    table = doc.get("host", {})
    if not isinstance(table, dict):
        raise HostError(f"{path}: [host] must be a table of hosts")
    hosts: dict[str, Host] = {}
    for name, entry in table.items():
        if not isinstance(entry, dict):
            raise HostError(f"{path}: host {name!r} must be a table")
        unknown = set(entry) - {"dest", "ssh_config", "zirv"}
        if unknown:
            raise HostError(f"{path}: host {name!r}: unknown key {sorted(unknown)[0]!r}")
        fields = {key: entry.get(key, "") for key in ("dest", "ssh_config", "zirv")}
        if not all(isinstance(value, str) for value in fields.values()):
            raise HostError(f"{path}: host {name!r}: every value must be a string")
        try:
            hosts[name] = make_host(name, fields["dest"], fields["ssh_config"], fields["zirv"])
        except HostError as exc:
            raise HostError(f"{path}: {exc}") from exc
    return hosts


def save(hosts: dict[str, Host]) -> Path:
    """Write every host to the operator's file, private (0600) and atomically."""
    import tomli_w

    if len(hosts) > MAX_HOSTS:
        raise HostError(f"at most {MAX_HOSTS} hosts")
    doc: dict[str, object] = {
        "host": {
            host.name: {
                key: value
                for key, value in (
                    ("dest", host.dest),
                    ("ssh_config", host.ssh_config),
                    ("zirv", host.zirv),
                )
                if value and not (key == "zirv" and value == "zirv")
            }
            for host in sorted(hosts.values(), key=lambda h: h.name)
        }
    }
    path = hosts_file()
    header = "# zirv's remote hosts (`zirv remote add|remove`); read from this file only.\n"
    paths.atomic_write(path, header + tomli_w.dumps(doc), mode=0o600)
    return path


def add(host: Host, *, replace: bool = False) -> Path:
    hosts = load()
    if host.name in hosts and not replace:
        raise HostError(f"host {host.name!r} exists; remove it first (or pass --replace)")
    hosts[host.name] = host
    return save(hosts)


def remove(name: str) -> Path:
    hosts = load()
    if name not in hosts:
        raise HostError(f"no host named {name!r}")
    del hosts[name]
    return save(hosts)
