"""The link to a remote host: OpenSSH, run as the user runs it.

`ssh -T [-F FILE] -o BatchMode=yes -o ConnectTimeout=N -- DEST <fixed argv>`:

- the user's own ssh: their keys, agent, `~/.ssh/config`, jump hosts and
  ControlMaster all apply; host keys are checked as their ssh checks them (no
  option here turns that off);
- `BatchMode=yes`: the dashboard has no terminal for a password or a host-key
  question, so ssh fails at once with its own message instead of hanging;
- `--` ends ssh's options, so a destination can never become one (hosts.py
  already refuses a leading `-`);
- the remote command is a fixed argv of checked words, each quoted for the
  remote shell (ssh joins its arguments into one string for that shell).
"""

from __future__ import annotations

import shlex

from zirv_dash.remote.hosts import Host

CONNECT_TIMEOUT_S = 10
"""How long ssh may take to reach a host before it gives up (ssh's own timer)."""
SSH = "ssh"


def ssh_argv(
    host: Host, remote: list[str], *, connect_timeout: int = CONNECT_TIMEOUT_S
) -> list[str]:
    """The ssh command line that runs `remote` (a fixed argv) on `host`."""
    argv = [SSH, "-T"]
    if host.ssh_config:
        argv += ["-F", host.ssh_config]
    argv += ["-o", "BatchMode=yes", "-o", f"ConnectTimeout={connect_timeout}"]
    argv += ["--", host.dest]
    argv += [shlex.quote(word) for word in remote]
    return argv


def version_argv(host: Host) -> list[str]:
    """`zirv --version` on the host: its release and protocol version."""
    return ssh_argv(host, [host.zirv, "--version"])


def proxy_argv(host: Host) -> list[str]:
    """`zirv session proxy` on the host: a stdio bridge to its runtime."""
    return ssh_argv(host, [host.zirv, "session", "proxy"])
