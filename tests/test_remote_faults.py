"""A host's faults seen by its link (remote/hostlink.py), against a real sshd and a
real remote runtime (tests/sshrig.py): the runtime stopped, no zirv there, a
remote that sends garbage, a frame over the limit or nothing at all. Each fault
stays its host's own: the rows say what is wrong (disconnected, never idle or
exited), and another host's pane on the same loop still takes keys.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
from collections.abc import Callable, Iterator

import pytest

from tests.sessionrig import ENGINE_SERVE, spawn_runtime
from tests.sshrig import ALIAS, ZIRV, SshServer, needs_sshd, sshd  # noqa: F401
from zirv_dash.attention.states import PaneState
from zirv_dash.panes.pane import Pane
from zirv_dash.remote.hostlink import HostLink
from zirv_dash.remote.hosts import Host, make_host
from zirv_dash.remote.pane import RemotePane
from zirv_dash.session.protocol import Hello, HelloFrame, encode

pytestmark = [needs_sshd, pytest.mark.timeout(180)]


class Owner:
    """The dashboard's side of the links, recorded."""

    def __init__(self) -> None:
        self.panes: list[RemotePane] = []
        self.said: list[str] = []
        self.changes = 0

    def adopt_pane(self, pane: Pane) -> None:
        assert isinstance(pane, RemotePane)
        self.panes.append(pane)

    def link_changed(self, host: str) -> None:
        self.changes += 1

    def say(self, text: str) -> None:
        self.said.append(text)

    @property
    def pane_size(self) -> tuple[int, int]:
        return 100, 30

    @property
    def scrollback_bytes(self) -> int:
        return 1 << 20


def remote_zirv(server: SshServer, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ZIRV, *argv], env=server.remote_env(), capture_output=True, text=True, timeout=60
    )


def start_remote_runtime(server: SshServer) -> subprocess.Popen[bytes]:
    repo = server.remote_home / "repo"
    repo.mkdir(exist_ok=True)
    return spawn_runtime(ENGINE_SERVE, cwd=repo, env=server.remote_env())


def stop_remote_runtime(server: SshServer, runtime: subprocess.Popen[bytes]) -> None:
    remote_zirv(server, "session", "stop", "--runtime")
    try:
        runtime.wait(60)
    except subprocess.TimeoutExpired:
        runtime.kill()
        runtime.wait(10)


@pytest.fixture
def remote(sshd: SshServer) -> Iterator[SshServer]:  # noqa: F811
    runtime = start_remote_runtime(sshd)
    try:
        yield sshd
    finally:
        stop_remote_runtime(sshd, runtime)


def box(server: SshServer, zirv: str = ZIRV, name: str = "box") -> Host:
    return make_host(name, ALIAS, str(server.config), zirv)


def fake_zirv(server: SshServer, name: str, body: str) -> str:
    """A `zirv` on the remote that is not one: a shell script doing `body`."""
    path = server.root / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return str(path)


async def until(check: Callable[[], object], what: str, timeout: float = 40.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"never: {what}"
        await asyncio.sleep(0.05)


class Screen:
    """What a pane's terminal receives (the engine would parse these bytes)."""

    def __init__(self, pane: RemotePane) -> None:
        self.pane = pane
        self.seen = b""
        asyncio.get_running_loop().add_reader(pane.remote.fd, self._read)

    def _read(self) -> None:
        try:
            self.seen += self.pane.remote._ours.recv(65536)
        except BlockingIOError:
            pass

    def close(self) -> None:
        asyncio.get_running_loop().remove_reader(self.pane.remote.fd)


def start_shell(server: SshServer, name: str) -> str:
    done = remote_zirv(
        server, "ctx", "api", "call", "session.start", f'{{"harness": "shell", "name": "{name}"}}'
    )
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["session"]["id"])


async def typed_and_seen(pane: RemotePane, screen: Screen, marker: str) -> None:
    """Keys into the pane come back as the remote shell's output."""
    pane.send(f"echo {marker[:3]}-{marker[3:]}\r".encode())
    await until(
        lambda: marker[:3].encode() + b"-" + marker[3:].encode() in screen.seen, f"{marker} echoed"
    )


def test_a_stopped_runtime_is_said_on_the_hosts_rows_and_its_return_reconnects(
    sshd: SshServer,  # noqa: F811
) -> None:
    runtime = start_remote_runtime(sshd)
    start_shell(sshd, "far")

    async def scenario() -> None:
        owner = Owner()
        link = HostLink(box(sshd), owner)
        link.start()
        try:
            await until(lambda: owner.panes and owner.panes[0].connected, "the pane attached")
            pane = owner.panes[0]
            await asyncio.to_thread(stop_remote_runtime, sshd, runtime)
            await until(
                lambda: "runtime stopped on box" in (pane.reason() or ""),
                f"the reason ({pane.state()}, {pane.reason()})",
            )
            assert pane.state() is PaneState.DISCONNECTED
            pane.send(b"x")
            assert any("keys not sent" in said for said in owner.said)
            again = start_remote_runtime(sshd)
            try:
                start_shell(sshd, "back")
                await until(
                    lambda: len(owner.panes) >= 2 and owner.panes[-1].connected,
                    "the new runtime's session attached",
                    60,
                )
                assert link.connected
                # The stopped runtime's session is gone: ended, with a notice, not
                # disconnected for ever.
                # (the engine reaps it from the terminal's exit code, as a PTY's).
                await until(lambda: pane.remote.exit_code is not None, "the old pane ended")
                assert any("ended while the link was down" in said for said in owner.said)
            finally:
                await link.close()
                stop_remote_runtime(sshd, again)
        finally:
            await link.close()

    asyncio.run(scenario())


HELLO = encode(HelloFrame(hello=Hello(capabilities=["core", "events", "session.attach"])))


def faulty_host(server: SshServer, name: str, body: str, timeout: float = 3.0) -> HostLink:
    link = HostLink(box(server, fake_zirv(server, f"zirv-{name}", body), name), Owner())
    link.timeout = timeout
    return link


async def first_problem(link: HostLink, timeout: float = 40.0) -> str:
    link.start()
    try:
        await until(lambda: link.problem, f"{link.host.name}'s problem", timeout)
        return link.problem
    finally:
        await link.close()


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("exit 127", "no `{zirv}` there; install it with: zirv remote install bad"),
        ("echo 'this is not json'", "bad sent a malformed frame"),
        # One line of 9 MiB: over the client's limit, refused before it is all read.
        ("head -c 9437184 /dev/zero | tr '\\000' a", "bad sent a frame over"),
        ("exec sleep 60", "bad: no answer within 3 s"),
        (f"printf '%s' '{HELLO.decode()}'; exec sleep 60", "no answer to events.subscribe"),
        (
            f"printf '%s' '{HELLO.decode()}'; head -c 9437184 /dev/zero | tr '\\000' a",
            "bad sent a frame over",
        ),
    ],
    ids=["no-zirv", "garbage", "huge-hello", "silent", "silent-after-hello", "huge-frame"],
)
def test_a_faulty_remote_ends_its_link_with_a_clear_bounded_error(
    sshd: SshServer,  # noqa: F811
    body: str,
    says: str,
) -> None:
    link = faulty_host(sshd, "bad", body)
    started = time.monotonic()
    problem = asyncio.run(first_problem(link))
    assert says.format(zirv=link.host.zirv) in problem, problem
    assert time.monotonic() - started < 30  # bounded: the timeout, not ssh's or forever
    assert "\n" not in problem


def test_a_stalled_host_does_not_stall_another_hosts_pane(remote: SshServer) -> None:
    start_shell(remote, "near")

    async def scenario() -> None:
        owner = Owner()
        good = HostLink(box(remote), owner)
        stalled = faulty_host(
            remote, "stall", f"printf '%s' '{HELLO.decode()}'; exec sleep 60", timeout=30.0
        )
        stalled.start()
        good.start()
        try:
            await until(lambda: owner.panes and owner.panes[0].connected, "box's pane attached")
            pane = owner.panes[0]
            screen = Screen(pane)
            started = time.monotonic()
            await typed_and_seen(pane, screen, "near42")
            # Keys went through while the other host still hangs on its first call.
            assert not stalled.problem and not stalled.feeds
            assert time.monotonic() - started < 25
            screen.close()
        finally:
            await stalled.close()
            await good.close()

    asyncio.run(scenario())


def test_a_host_that_comes_back_without_zirv_says_so_on_its_rows(remote: SshServer) -> None:
    start_shell(remote, "gone")
    host = box(remote)

    async def scenario() -> None:
        owner = Owner()
        link = HostLink(host, owner)
        link.start()
        try:
            await until(lambda: owner.panes and owner.panes[0].connected, "the pane attached")
            pane = owner.panes[0]
            link.host = make_host("box", ALIAS, str(remote.config), str(remote.root / "nozirv"))
            assert link.client is not None
            link.client.proc.kill()  # the link drops; the next try finds no zirv
            await until(lambda: "no zirv on box" in (pane.reason() or ""), "the reason")
            assert pane.state() is PaneState.DISCONNECTED
            assert "zirv remote install box" in link.problem
        finally:
            await link.close()

    asyncio.run(scenario())
