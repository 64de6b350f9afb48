"""`zirv session attach` in a real terminal (a private tmux server): type, kill -9
the client, reattach and see the same screen with the same processes; Ctrl+A d
detaches and stops nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.sessionrig import runtime, short_state
from tests.tmuxharness import Tmux, base_env, eventually
from zirv_dash.session import client

__all__ = ["runtime", "short_state"]

pytestmark = pytest.mark.tmux
ATTACH = [sys.executable, "-m", "zirv_dash.session.cli", "session", "attach"]


@pytest.fixture
def term(short_state: Path) -> Iterator[Tmux]:
    t = Tmux(short_state, base_env(short_state, short_state / "operator"))
    yield t
    t.kill()


def attach_pids(t: Tmux) -> list[int]:
    return t.pids_running(b"zirv_dash.session.cli", b"attach")


def facts() -> dict[str, object]:
    got: dict[str, object] = client.call("session.get", {"session": "work"})["session"]
    return got


def test_attach_type_kill_9_reattach_then_detach(
    runtime: subprocess.Popen[str], term: Tmux
) -> None:
    pid = client.call("session.start", {"argv": ["/bin/sh"], "name": "work"})["session"]["pid"]
    term.start([*ATTACH, "work"], 100, 30)
    eventually(lambda: facts()["controller"] is not None, "the attach to take the seat")
    term.text("echo hi-$((6*7))")
    term.keys("Enter")
    term.wait_for("hi-42")
    assert (facts()["columns"], facts()["rows"]) == (100, 30)  # follows the terminal

    (client_pid,) = attach_pids(term)
    os.kill(client_pid, signal.SIGKILL)
    term.wait_for("EXITED 137")
    eventually(lambda: facts()["controller"] is None, "the killed client's seat to be freed")

    term.start([*ATTACH, "work"], 100, 30, name="again")
    screen = term.wait_for("hi-42", name="again")  # the same screen, repainted
    assert "EXITED" not in screen
    eventually(lambda: facts()["controller"] is not None, "the new attach to take the seat")
    term.text("echo $$", name="again")
    term.keys("Enter", name="again")
    term.wait_for(str(pid), name="again")  # the same shell, not a relaunched one

    term.keys("C-a", "d", name="again")
    term.wait_for("[detached]", name="again")
    term.wait_for("EXITED 0", name="again")
    after = facts()
    assert after["state"] == "running" and after["pid"] == pid and after["controller"] is None
    os.kill(pid, 0)
    assert len(client.call("session.list")["sessions"]) == 1


def test_observer_busy_and_takeover_between_two_terminals(
    runtime: subprocess.Popen[str], term: Tmux
) -> None:
    client.call("session.start", {"argv": ["/bin/sh"], "name": "work"})
    term.start([*ATTACH, "work"], 100, 30, name="first")
    eventually(lambda: facts()["controller"] is not None, "the first attach to take the seat")
    first = facts()["controller"]
    term.start([*ATTACH, "work"], 100, 30, name="second")  # seat taken: it observes
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


def last_line(screen: str) -> str:
    lines = screen.rstrip("\n").split("\n")
    return lines[-1] if lines else ""


def test_an_observer_says_why_and_draws_the_session_at_its_own_size(
    runtime: subprocess.Popen[str], term: Tmux
) -> None:
    client.call("session.start", {"argv": ["/bin/sh"], "name": "work"})
    term.start([*ATTACH, "work"], 100, 30, name="first")
    eventually(lambda: facts()["controller"] is not None, "the first attach to take the seat")
    first = str(facts()["controller"])
    # A smaller terminal: told it is `busy` (not silently an observer), and shown
    # the part of the 100x30 screen around the cursor, never wrapped garbage.
    term.start([*ATTACH, "work"], 60, 12, name="second")
    eventually(lambda: facts()["observers"] == 1, "the second attach to observe")
    status = last_line(term.wait_for("busy:", name="second"))
    assert "busy:" in status and first in status and "100x30" in status
    term.text("echo from-first-$((2+3))", name="first")
    term.keys("Enter", name="first")
    screen = term.wait_for("from-first-5", name="second")
    assert all(len(line) <= 60 for line in screen.split("\n"))
    assert (facts()["columns"], facts()["rows"]) == (100, 30)  # the observer resized nothing
    # Its own terminal grows: drawn again at the new size, the session letterboxed.
    term.run("resize-window", "-t", "second", "-x", "120", "-y", "40")
    eventually(
        lambda: (
            "busy:" in last_line(term.capture(name="second"))
            and len(term.capture(name="second").rstrip("\n").split("\n")) == 40
        ),
        "the observer to draw at 120x40",
    )
    assert "from-first-5" in term.capture(name="second")
    # A takeover: the client that lost the seat is told so, and observes.
    term.start([*ATTACH, "work", "--takeover"], 80, 24, name="third")
    eventually(lambda: facts()["controller"] not in (None, first), "the takeover")
    status = last_line(term.wait_for("controller_changed:", name="first"))
    assert "controller_changed:" in status and str(facts()["controller"]) in status
    term.text("echo third-$((3+4))", name="third")
    term.keys("Enter", name="third")
    term.wait_for("third-7", name="first")  # drawn at the new controller's 80x24
    term.text("echo lost-$((1+1))", name="first")
    term.keys("Enter", name="first")
    assert "lost-2" not in term.capture(name="third")  # the old controller's keys go nowhere
    # The seat is left: an observer's status line says so, not a stale `busy`.
    term.keys("C-a", "d", name="third")
    eventually(lambda: facts()["controller"] is None, "the taker's detach")
    term.wait_for("nobody controls it", name="second")
