"""The dashboard the runtime hosts (`dash`): the whole dashboard over the runtime's
engine, drawn for whichever client attaches, in-process over a real socket,
real panes and the real Textual app."""

from __future__ import annotations

import asyncio
import base64
import sys
import textwrap
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import pytest

from tests.sessionrig import connected, engine_serving, run_script, short_state
from zirv_dash.cli import chat
from zirv_dash.panes.procinfo import pid_exists
from zirv_dash.session.client import Client, RemoteError
from zirv_dash.session.engine_host import EngineHost
from zirv_dash.session.protocol import ErrorCode, EventKind
from zirv_dash.session.server import Server
from zirv_dash.terminal import TerminalModel

__all__ = ["short_state"]

pytestmark = pytest.mark.timeout(90)
PREFIX = b"\x01"


@pytest.fixture
def repo(short_state: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    where = short_state / "repo"
    where.mkdir()
    monkeypatch.setenv("SHELL", "/bin/sh")
    monkeypatch.setenv("PS1", "$ ")
    monkeypatch.setenv("ZIRV_HOME", str(short_state / "operator"))
    monkeypatch.setenv("ZIRV_CTX_AGENT", "shell")  # a fresh orchestrator is a shell
    monkeypatch.setenv("ZIRV_CTX_DASH_IDLE_QUIET_MS", "300")
    return where


def hosted(repo: Path) -> AbstractAsyncContextManager[tuple[Server, EngineHost]]:
    return engine_serving(repo, chat.hosted_dashboard)


async def shows(client: Client, session: str, text: str, timeout: float = 30.0) -> str:
    await client.call("session.wait", {"session": session, "text": text, "timeout": timeout})
    screen = await client.call("session.screen", {"session": session})
    return "\n".join(screen["lines"])


async def attach_dash(client: Client, columns: int = 120, rows: int = 40) -> dict[str, object]:
    attached = await client.call(
        "session.attach", {"session": "dash", "mode": "controller", "color_system": "256"}
    )
    await client.call("session.resize", {"session": "dash", "columns": columns, "rows": rows})
    result: dict[str, object] = attached
    return result


async def keys(client: Client, data: bytes) -> None:
    encoded = base64.b64encode(data).decode()
    await client.call("session.send_input", {"session": "dash", "data": encoded})


async def detached(client: Client, session: str = "dash") -> None:
    while True:
        event = await client.events.get()
        data = event.data
        if event.event is EventKind.CLIENT_DETACHED and data.session_id == session:
            if data.client_id == client.client_id:
                return


async def test_the_dashboard_is_drawn_over_the_runtime_panes_and_d_detaches(repo: Path) -> None:
    async with hosted(repo) as (server, host), connected(server) as client:
        work = (await client.call("session.start", {"harness": "shell", "name": "work"}))["session"]
        listed = [s["id"] for s in (await client.call("session.list"))["sessions"]]
        assert listed == ["dash", work["id"]]
        attached = await attach_dash(client)
        assert attached["mode"] == "controller"
        text = await shows(client, "dash", "SESSIONS")
        assert "shell" in text  # the sidebar lists the runtime's pane
        assert "^A d detach" in text and "q quit" not in text  # leaving is a detach
        await keys(client, b"echo via-dash-$((6*7))\r")
        await shows(client, "dash", "via-dash-42")  # drawn by the dashboard
        await shows(client, work["id"], "via-dash-42")  # typed into the real child
        # A repaint rebuilds exactly the runtime's model of the dashboard.
        shot = await client.call("session.screen", {"session": "dash", "repaint": True})
        assert (shot["columns"], shot["rows"]) == (120, 40)
        model = TerminalModel(shot["columns"], shot["rows"])
        model.feed(base64.b64decode(shot["repaint"]))
        assert model.lines() == shot["lines"]

        await keys(client, PREFIX + b"d")
        await asyncio.wait_for(detached(client), 20)
        facts = (await client.call("session.get", {"session": work["id"]}))["session"]
        assert facts["state"] == "running" and facts["pid"] == work["pid"]
        assert pid_exists(work["pid"])
        dash = (await client.call("session.get", {"session": "dash"}))["session"]
        assert dash["controller"] is None
        assert host.dash_session is not None and host.dash_session.ui is not None


async def test_quit_in_the_hosted_dashboard_detaches_and_a_second_client_resumes_it(
    repo: Path,
) -> None:
    async with hosted(repo) as (server, host), connected(server) as first:
        await attach_dash(first, 100, 30)
        # No pane yet: the hosted dashboard opens the orchestrator (a shell here).
        await shows(first, "dash", "SESSIONS")
        orch = await asyncio.wait_for(_first_pane(first), 30)
        await keys(first, b"echo first-$((2+3))\r")
        await shows(first, str(orch["id"]), "first-5")
        await shows(first, "dash", "first-5")  # drawn, so in the runtime's model
        await keys(first, PREFIX + b"q")  # quitting a hosted dashboard detaches
        await asyncio.wait_for(detached(first), 20)
        assert pid_exists(orch["pid"])
        async with connected(server) as second:
            got = await second.call(
                "session.attach", {"session": "dash", "mode": "controller", "repaint": True}
            )
            shot = got["screen"]
            model = TerminalModel(shot["columns"], shot["rows"])
            model.feed(base64.b64decode(shot["repaint"]))
            assert any("first-5" in line for line in model.lines())  # the same screen
            await keys(second, b"echo second-$((3+4))\r")
            await shows(second, str(orch["id"]), "second-7")
            facts = (await second.call("session.get", {"session": orch["id"]}))["session"]
            assert facts["pid"] == orch["pid"]  # the same process, nothing relaunched


async def _first_pane(client: Client) -> dict[str, object]:
    while True:
        sessions = (await client.call("session.list"))["sessions"]
        panes = [s for s in sessions if s["id"] != "dash" and s.get("pid")]
        if panes:
            pane: dict[str, object] = panes[0]
            return pane
        await asyncio.sleep(0.05)


async def test_an_observer_watches_the_dashboard_and_cannot_type(repo: Path) -> None:
    async with hosted(repo) as (server, host), connected(server) as controller:
        work = (await controller.call("session.start", {"harness": "shell"}))["session"]
        await attach_dash(controller)
        await shows(controller, "dash", "SESSIONS")
        async with connected(server) as observer:
            with pytest.raises(RemoteError) as refused:
                await observer.call("session.attach", {"session": "dash", "mode": "controller"})
            assert refused.value.code is ErrorCode.BUSY
            seat = await observer.call("session.attach", {"session": "dash", "repaint": True})
            assert seat["mode"] == "observer"
            shot = seat["screen"]
            model = TerminalModel(shot["columns"], shot["rows"])
            model.feed(base64.b64decode(shot["repaint"]))
            with pytest.raises(RemoteError) as typed:
                await keys(observer, b"echo nope\r")
            assert typed.value.code is ErrorCode.NOT_CONTROLLER
            await keys(controller, b"echo seen-$((4+4))\r")
            await shows(observer, work["id"], "seen-8")
            # The observer's stream carries the dashboard's frames: fed after
            # its repaint, its own model shows what the controller's shows.
            while not any("seen-8" in line for line in model.lines()):
                out = await asyncio.wait_for(observer.outputs.get(), 20)
                if out.output == "dash" and out.seq > shot["seq"]:
                    model.feed(out.data)


async def test_stopping_the_dashboard_session_is_refused(repo: Path) -> None:
    async with hosted(repo) as (server, host), connected(server) as client:
        with pytest.raises(RemoteError) as refused:
            await client.call("session.stop", {"session": "dash"})
        assert refused.value.code is ErrorCode.UNSUPPORTED
        assert "stop the runtime" in refused.value.message


def test_a_runtime_nobody_attached_to_its_dashboard_loads_no_ui(repo: Path) -> None:
    """The hosted dashboard is offered, but Textual is imported only when a
    client attaches to it."""
    script = textwrap.dedent(
        """
        import asyncio, os, signal, sys
        from zirv_dash.cli import chat
        from zirv_dash.session import blocking, cli
        from zirv_dash.session.runtime import open_host

        def ready(path):
            async def check():
                listed = await asyncio.to_thread(blocking.call, "session.list")
                assert listed["sessions"][0]["id"] == "dash", listed
                await asyncio.to_thread(blocking.call, "session.start", {"harness": "shell"})
                for name in ("textual", "rich"):
                    assert name not in sys.modules, name
                print("no ui", flush=True)
                os.kill(os.getpid(), signal.SIGTERM)
            asyncio.get_running_loop().create_task(check())

        host = lambda: open_host(dashboard=chat.hosted_dashboard)
        raise SystemExit(asyncio.run(cli.serve(host, ready)))
        """
    )
    result = run_script(script, repo)
    assert result.returncode == 0, result.stderr
    assert "no ui" in result.stdout


def test_zirv_chat_refuses_a_runtime_serving_another_repository(
    short_state: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.sessionrig import end_runtime, engine_env, spawn_runtime
    from zirv_dash.session import cli

    first, second = short_state / "first", short_state / "second"
    first.mkdir()
    second.mkdir()
    hosting = [sys.executable, "-m", "zirv_dash.cli.main", "session", "serve"]
    proc = spawn_runtime(hosting, cwd=first, env=engine_env(short_state))
    try:
        monkeypatch.chdir(second)
        assert cli.attach_dashboard("shell") == 2
        err = capsys.readouterr().err
        assert "serves repository 'first', not 'second'" in err
        assert "--no-session" in err
        sessions = cli.client.call("session.list")["sessions"]
        assert [s["id"] for s in sessions] == ["dash"]  # nothing was started for it
    finally:
        end_runtime(proc)
