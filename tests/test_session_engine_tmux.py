"""`zirv session` end to end against the real engine runtime, in real terminals
(a private tmux server): attach, type, kill -9 the client, reattach to the same
screen and processes; observer, controller, `busy` and `--takeover`; detach,
mail delivered by the runtime, reattach; `stop --yes` and `stop --runtime`."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.sessionrig import (
    descendants,
    engine_env,
    engine_runtime,
    is_guard,
    short_state,
    wait_gone,
)
from tests.tmuxharness import Tmux, eventually
from zirv_dash import paths
from zirv_dash.mail import mailbox as mail
from zirv_dash.panes import procinfo, registry
from zirv_dash.session import blocking as client
from zirv_dash.session import cli
from zirv_dash.session.client import Client, RemoteError
from zirv_dash.session.protocol import ErrorCode

__all__ = ["engine_runtime", "short_state"]

pytestmark = [pytest.mark.tmux, pytest.mark.timeout(120)]
ATTACH = [sys.executable, "-m", "zirv_dash.session.cli", "session", "attach"]
SENDER = "7d3c1b2a-0f9e-4d8c-b7a6-112233445566"


@pytest.fixture
def term(short_state: Path) -> Iterator[Tmux]:
    t = Tmux(short_state, engine_env(short_state))
    yield t
    t.kill()


def facts(ref: str = "work") -> dict[str, object]:
    got: dict[str, object] = client.call("session.get", {"session": ref})["session"]
    return got


def attach_pids(t: Tmux) -> list[int]:
    return t.pids_running(b"zirv_dash.session.cli", b"attach")


def identity(pid: int) -> tuple[int, float | None]:
    """A process by pid *and* start time (a recycled pid is another process)."""
    return pid, procinfo.process_start_time(pid)


def start(harness: str, name: str) -> dict[str, object]:
    started: dict[str, object] = client.call("session.start", {"harness": harness, "name": name})[
        "session"
    ]
    return started


def test_kill_9_the_client_then_reattach_to_the_same_screen_and_processes(
    engine_runtime: subprocess.Popen[str], term: Tmux
) -> None:
    pid = int(str(start("shell", "work")["pid"]))
    term.start([*ATTACH, "work"], 100, 30)
    eventually(lambda: facts()["controller"] is not None, "the attach to take the seat")
    term.text("sleep 500 & echo typed-$((6*7))")
    term.keys("Enter")
    term.wait_for("typed-42")
    assert (facts()["columns"], facts()["rows"]) == (100, 30)  # the pane follows the terminal
    before = {identity(p) for p in descendants(engine_runtime.pid)}

    (attach_pid,) = attach_pids(term)
    os.kill(attach_pid, signal.SIGKILL)
    term.wait_for("EXITED 137")
    eventually(lambda: facts()["controller"] is None, "the killed client's seat to be freed")

    term.start([*ATTACH, "work"], 100, 30, name="again")
    screen = term.wait_for("typed-42", name="again")  # the same screen, repainted
    assert "EXITED" not in screen
    eventually(lambda: facts()["controller"] is not None, "the new attach to take the seat")
    term.text("echo pid-$$", name="again")
    term.keys("Enter", name="again")
    term.wait_for(f"pid-{pid}", name="again")  # the same shell, nothing relaunched
    after = {identity(p) for p in descendants(engine_runtime.pid)}
    assert before <= after  # every process (the shell, its job, the guard) is the same one
    assert facts()["generation"] == 1

    term.keys("C-a", "d", name="again")
    term.wait_for("[detached]", name="again")
    assert facts()["state"] == "running" and facts()["controller"] is None


def test_observer_busy_and_takeover(engine_runtime: subprocess.Popen[str], term: Tmux) -> None:
    start("shell", "work")
    term.start([*ATTACH, "work"], 100, 30, name="first")
    eventually(lambda: facts()["controller"] is not None, "the first attach to take the seat")
    first = facts()["controller"]

    async def second_controller() -> ErrorCode:
        other = await Client.connect()
        try:
            await other.call("session.attach", {"session": "work", "mode": "controller"})
        except RemoteError as exc:
            return exc.code
        finally:
            await other.close()
        return ErrorCode.UNKNOWN

    assert asyncio.run(second_controller()) is ErrorCode.BUSY  # refused, not displaced
    term.start([*ATTACH, "work"], 100, 30, name="second")  # the seat is taken: it observes
    eventually(lambda: facts()["observers"] == 1, "the second attach to observe")
    term.text("echo typed-$((1+1))", name="second")
    term.keys("Enter", name="second")
    term.text("echo from-first-$((2+3))", name="first")
    term.keys("Enter", name="first")
    term.wait_for("from-first-5", name="second")  # the observer sees it live
    assert "typed-2" not in term.capture(name="first")  # an observer's keys go nowhere
    assert facts()["controller"] == first

    term.start([*ATTACH, "work", "--takeover"], 100, 30, name="third")
    eventually(lambda: facts()["controller"] not in (None, first), "the takeover")
    assert facts()["observers"] == 2  # the old controller still watches
    term.text("echo third-$((3+4))", name="third")
    term.keys("Enter", name="third")
    term.wait_for("third-7", name="first")


def test_detach_mail_is_delivered_then_reattach_shows_it(
    engine_runtime: subprocess.Popen[str], term: Tmux, short_state: Path
) -> None:
    start("shell", "orch")  # the orchestrator: mail bodies go to the worker
    sid = str(start("demo", "work")["id"])
    term.start([*ATTACH, "work"], 100, 30)
    term.wait_for("demo agent")
    eventually(lambda: facts()["controller"] is not None, "the attach to take the seat")
    term.keys("C-a", "d")
    term.wait_for("[detached]")
    eventually(lambda: facts()["controller"] is None, "the detach")

    record = registry.read_record(short_state / "sessions" / f"{sid}.json")
    mail.store(
        paths.repo_slug(paths.repo_root(short_state / "repo")),
        "note-for-the-detached-pane",
        from_session=SENDER,
        from_agent="claude",
        to_session=record.session,
    )
    params = {"session": sid, "text": "note-for-the-detached-pane", "timeout": 45}
    client.call("session.wait", params, timeout=55)  # typed in by the runtime, nobody attached

    term.start([*ATTACH, "work"], 100, 30, name="again")
    term.wait_for("note-for-the-detached-pane", name="again")


def test_stop_yes_and_stop_runtime_leave_no_process(
    engine_runtime: subprocess.Popen[str], term: Tmux
) -> None:
    shell = start("shell", "work")
    client.call(
        "session.send_input",
        {"session": shell["id"], "text": "sleep 300 & sleep 301 & echo jobs-$((1+1))\r"},
    )
    client.call("session.wait", {"session": shell["id"], "text": "jobs-2", "timeout": 20})
    ours = descendants(int(str(shell["pid"]))) | {int(str(shell["pid"]))}
    assert len(ours) >= 3
    term.start([*ATTACH, "work"], 100, 30)
    eventually(lambda: facts()["controller"] is not None, "the attach to take the seat")
    # `stop` is the operator's separate verb: it works while a client holds the seat.
    assert cli.session_main(["stop", "work", "--yes"]) == 0
    assert [p for p in ours if procinfo.pid_exists(p)] == []
    term.wait_for("[exited]")
    assert facts()["state"] == "stopped"

    start("demo", "agent")
    below = descendants(engine_runtime.pid)
    assert cli.session_main(["stop", "--runtime"]) == 0
    # It returns once the runtime is gone, which ended every pane first.
    assert [p for p in below if procinfo.pid_exists(p) and not is_guard(p)] == []
    engine_runtime.wait(10)
    assert wait_gone(below) == []  # the guard follows on its pipe's EOF, a moment later
    with pytest.raises(client.NotRunning):
        client.call("server.ping", timeout=2.0)
