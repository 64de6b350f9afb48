"""`zirv session attach|list --host`: a remote runtime's session over a real ssh link.

The remote is this machine seen through a real sshd on 127.0.0.1 with another
HOME and state dir (tests/sshrig.py); its runtime is the product's (`zirv
session serve`), its session a real shell on a PTY there.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.sessionrig import ENGINE_SERVE, spawn_runtime
from tests.sshrig import ALIAS, ZIRV, SshServer, needs_sshd, sshd  # noqa: F401

pytestmark = [needs_sshd, pytest.mark.timeout(180)]


def zirv(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zirv_dash.cli.main", *argv],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )


def remote_zirv(server: SshServer, *argv: str) -> subprocess.CompletedProcess[str]:
    """The remote user's own zirv, run there (its env), not over the link."""
    return subprocess.run(
        [ZIRV, *argv], env=server.remote_env(), capture_output=True, text=True, timeout=60
    )


@pytest.fixture
def remote_runtime(sshd: SshServer) -> Iterator[SshServer]:  # noqa: F811
    repo = sshd.remote_home / "repo"
    repo.mkdir()
    runtime = spawn_runtime(ENGINE_SERVE, cwd=repo, env=sshd.remote_env())
    added = zirv("remote", "add", "box", ALIAS, "--ssh-config", str(sshd.config), "--zirv", ZIRV)
    assert added.returncode == 0, added.stderr
    try:
        yield sshd
    finally:
        remote_zirv(sshd, "session", "stop", "--runtime")
        try:
            runtime.wait(60)
        except subprocess.TimeoutExpired:
            runtime.kill()


class Terminal:
    """A program on a PTY of its own, read until a text shows."""

    def __init__(self, argv: list[str]) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execvp(argv[0], argv)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.seen = b""

    def wait_for(self, text: bytes, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.seen:
            left = deadline - time.monotonic()
            assert left > 0, f"never showed {text!r}; saw {self.seen[-600:]!r}"
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    self.seen += os.read(self.fd, 65536)
                except OSError:
                    assert text in self.seen, f"ended before {text!r}: {self.seen[-600:]!r}"

    def write(self, data: bytes) -> None:
        os.write(self.fd, data)

    def exit_status(self, timeout: float = 30.0) -> int:
        deadline = time.monotonic() + timeout
        while True:
            with_drain = select.select([self.fd], [], [], 0.05)[0]
            if with_drain:
                try:
                    self.seen += os.read(self.fd, 65536)
                except OSError:
                    pass
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
            assert time.monotonic() < deadline, "the client never ended"

    def close(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(self.fd)


ATTACH = [sys.executable, "-m", "zirv_dash.cli.main", "session", "attach"]


def session_facts(server: SshServer, sid: str) -> dict[str, object]:
    done = remote_zirv(server, "ctx", "api", "call", "session.get", json.dumps({"session": sid}))
    assert done.returncode == 0, done.stderr
    facts: dict[str, object] = json.loads(done.stdout)["session"]
    return facts


def start_shell(server: SshServer, name: str) -> str:
    started = remote_zirv(
        server,
        "ctx",
        "api",
        "call",
        "session.start",
        json.dumps({"harness": "shell", "name": name}),
    )
    assert started.returncode == 0, started.stderr
    return str(json.loads(started.stdout)["session"]["id"])


def test_list_shows_the_hosts_sessions(remote_runtime: SshServer) -> None:
    sid = start_shell(remote_runtime, "far-shell")
    listed = zirv("session", "list", "--host", "box", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [s["id"] for s in json.loads(listed.stdout)] == [sid]
    unknown = zirv("session", "list", "--host", "nowhere")
    assert unknown.returncode == 1 and "no host named 'nowhere'" in unknown.stderr


def test_attach_types_into_a_remote_session_and_survives_a_dropped_link(
    remote_runtime: SshServer,
) -> None:
    sid = start_shell(remote_runtime, "typed")
    client = Terminal(
        [sys.executable, "-m", "zirv_dash.cli.main", "session", "attach", sid, "--host", "box"]
    )
    try:
        client.wait_for(b"\x1b[1;3H")  # the repaint, cursor after the shell's prompt
        client.write(b"echo over-$((40+2))-ssh\r")
        client.wait_for(b"over-42-ssh")
        pid = json.loads(
            remote_zirv(
                remote_runtime, "ctx", "api", "call", "session.get", json.dumps({"session": sid})
            ).stdout
        )["session"]["pid"]
        # The link drops (the ssh client dies): this client ends; the session lives on.
        children = _ssh_children(client.pid)
        assert children, "no ssh child of the attach client"
        for child in children:
            os.kill(child, signal.SIGKILL)
        assert client.exit_status() == 1
        assert b"[runtime gone]" in client.seen
    finally:
        client.close()
    facts = json.loads(
        remote_zirv(
            remote_runtime, "ctx", "api", "call", "session.get", json.dumps({"session": sid})
        ).stdout
    )["session"]
    assert facts["state"] == "running" and facts["pid"] == pid
    # A new attach shows the same screen: the echo is still there.
    again = Terminal(
        [sys.executable, "-m", "zirv_dash.cli.main", "session", "attach", sid, "--host", "box"]
    )
    try:
        again.wait_for(b"over-42-ssh")
    finally:
        again.close()


def _ssh_children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes().split(b"\0")[0]
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid and cmd.endswith(b"ssh"):
            found.append(int(entry.name))
    return found
