"""A real OpenSSH server on 127.0.0.1 for the remote-host tests, and a "remote user".

`sshd` (Debian's openssh-server) runs in the foreground on a free port with a
generated host key; a generated client key is the only one it accepts. The
client side is an ssh config file (`Host zirv-test`: the port, the key, a
`known_hosts` holding the host key, `StrictHostKeyChecking yes`), passed as
`zirv remote add … --ssh-config FILE`, exactly as a user would. The "remote"
user is this user with another HOME and state dir: sshd's `SetEnv` gives every
session there its own `HOME`, `ZIRV_HOME` and `ZIRV_CTX_STATE_DIR`, so the
remote zirv's runtime, socket and configuration are not this side's.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

SSHD = shutil.which("sshd") or ("/usr/sbin/sshd" if Path("/usr/sbin/sshd").exists() else None)
needs_sshd = pytest.mark.skipif(
    SSHD is None or shutil.which("ssh") is None,
    reason="needs OpenSSH (Debian: apt-get install openssh-server)",
)
ALIAS = "zirv-test"
ZIRV = str(Path(sys.executable).with_name("zirv"))
REMOTE_PATH = f"{Path(sys.base_prefix) / 'bin'}:/usr/local/bin:/usr/bin:/bin"
"""The remote login's PATH: a python3 with venv and pip (this interpreter's own
installation), and the system's; no zirv on it."""
"""The remote zirv: this venv's (the remote user's PATH does not hold it)."""


@dataclass
class SshServer:
    port: int
    root: Path
    config: Path
    """The client's ssh config (`-F`), naming `ALIAS`."""
    remote_home: Path
    remote_state: Path
    proc: subprocess.Popen[bytes]

    def remote_env(self) -> dict[str, str]:
        """The remote user's environment, for starting its runtime from here."""
        env = dict(os.environ)
        env.update(
            HOME=str(self.remote_home),
            ZIRV_HOME=str(self.remote_home / ".zirv"),
            ZIRV_CTX_STATE_DIR=str(self.remote_state),
        )
        return env

    def ssh(self, *argv: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["ssh", "-F", str(self.config), "-o", "BatchMode=yes", ALIAS, *argv],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def keygen(path: Path) -> str:
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "zirv-test", "-f", str(path)],
        check=True,
    )
    return path.with_suffix(".pub").read_text().strip()


def client_config(root: Path, port: int, key: Path, known: Path, user: str) -> Path:
    config = root / "ssh_config"
    config.write_text(
        f"Host {ALIAS}\n"
        "  HostName 127.0.0.1\n"
        f"  Port {port}\n"
        f"  User {user}\n"
        f"  IdentityFile {key}\n"
        "  IdentitiesOnly yes\n"
        f"  UserKnownHostsFile {known}\n"
        "  StrictHostKeyChecking yes\n"
        "  LogLevel ERROR\n"
    )
    config.chmod(0o600)
    return config


@pytest.fixture
def sshd() -> Iterator[SshServer]:
    with loopback_sshd() as server:
        yield server


@contextlib.contextmanager
def loopback_sshd() -> Iterator[SshServer]:
    """The server, for as long as the block runs (bench/remote_latency.py uses it too)."""
    assert SSHD is not None
    # Short: the remote state dir holds the runtime's unix socket (107 bytes).
    root = Path(tempfile.mkdtemp(prefix="zsh-", dir="/tmp"))
    root.chmod(0o700)
    host_key = root / "host_key"
    host_pub = keygen(host_key)
    client_key = root / "id_client"
    authorized = root / "authorized_keys"
    authorized.write_text(keygen(client_key) + "\n")
    authorized.chmod(0o600)
    port = free_port()
    known = root / "known_hosts"
    known.write_text(f"[127.0.0.1]:{port} {host_pub}\n")
    remote_home = root / "rh"
    remote_home.mkdir()
    remote_state = root / "rs"
    remote_state.mkdir(mode=0o700)
    user = getpass.getuser()
    config = root / "sshd_config"
    config.write_text(
        f"Port {port}\n"
        "ListenAddress 127.0.0.1\n"
        f"HostKey {host_key}\n"
        f"PidFile {root / 'sshd.pid'}\n"
        f"AuthorizedKeysFile {authorized}\n"
        "PubkeyAuthentication yes\n"
        "PasswordAuthentication no\n"
        "KbdInteractiveAuthentication no\n"
        "PermitRootLogin prohibit-password\n"
        f"AllowUsers {user}\n"
        "StrictModes no\n"
        "UsePAM no\n"
        "PrintMotd no\n"
        f"SetEnv HOME={remote_home} ZIRV_HOME={remote_home / '.zirv'}"
        f" ZIRV_CTX_STATE_DIR={remote_state} PATH={REMOTE_PATH}\n"
    )
    if os.geteuid() == 0:
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # privilege separation
    proc = subprocess.Popen(
        [SSHD, "-D", "-e", "-f", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    server = SshServer(
        port=port,
        root=root,
        config=client_config(root, port, client_key, known, user),
        remote_home=remote_home,
        remote_state=remote_state,
        proc=proc,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            assert proc.poll() is None, (proc.stderr.read() if proc.stderr else b"").decode()
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert time.monotonic() < deadline, "sshd never listened"
            time.sleep(0.05)
        yield server
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        if proc.stderr is not None:
            proc.stderr.close()
        shutil.rmtree(root, ignore_errors=True)
