"""Delivery into real panes (no UI): the demo agent on a real PTY, driven by a
small loop that reads output and advances the engine, as the dashboard does."""

from __future__ import annotations

import select
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from zirv_dash.attention.states import PaneState
from zirv_dash.config.layers import load_settings
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.mail import mailbox as mail
from zirv_dash.mail import nudge
from zirv_dash.mail.delivery import DeliveryEngine, NudgeResult
from zirv_dash.mail.injection import Phase
from zirv_dash.panes.pane import Pane

pytestmark = pytest.mark.timeout(30)

SENDER = "abcd1234-0000-4000-8000-00000000beef"
# Both stand-ins draw the demo agent's prompt ("demo> ", cursor after it), so
# the pane is known to wait at its input prompt, the only place mail is typed.
RAW_SILENT = (
    "import sys, tty; sys.stdout.write('ready\\r\\ndemo> '); sys.stdout.flush(); "
    "tty.setraw(0); "
    "[None for _ in iter(lambda: sys.stdin.buffer.read1(4096), b'')]"
)
"""A child that prints once, then reads in raw mode without echo: nothing it
is sent is ever answered."""
RAW_CHUNKS = (
    "import os, sys, tty; sys.stdout.write('ready\\r\\ndemo> '); sys.stdout.flush()\n"
    "tty.setraw(0)\n"
    "while True:\n"
    "    data = os.read(0, 4096)\n"
    "    if not data: break\n"
    "    os.write(1, b'chunk:' + repr(data).encode() + b'\\r\\ndemo> ')\n"
)
"""A child that reports every read(2) it gets, one line per chunk."""


@pytest.fixture
def dash(tmp_path: Path) -> Iterator[Dashboard]:
    settings = load_settings(tmp_path, flags={"dash": {"idle_quiet_ms": 300}})
    board = Dashboard(settings, tmp_path, manage_state=True)
    yield board
    board.shutdown_all(grace=0.2)


def drive(
    dash: Dashboard, engine: DeliveryEngine, cond: Callable[[], bool], timeout: float = 10.0
) -> None:
    """Pump every pane's output and advance the engine until `cond()` holds."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        fds = [p.fd for p in dash.panes if p.fd is not None]
        if fds:
            select.select(fds, [], [], 0.02)
        for pane in dash.panes:
            while pane.read_available():
                pass
            while pane.pump(65536):
                pass
            pane.check_screen()
        dash.reap()
        # What the dashboard's timer and tick do: advance typing, and deliver
        # to panes that had something waiting once they can take it.
        engine.retry_pending()


def text(pane: Pane) -> str:
    return "\n".join(pane.model_view.lines())


def demo(dash: Dashboard, engine: DeliveryEngine, **kw: object) -> Pane:
    pane = dash.spawn("demo", **kw)  # type: ignore[arg-type]
    drive(dash, engine, lambda: pane.state() is PaneState.IDLE or pane.is_idle())
    return pane


def send_mail(dash: Dashboard, body: str, to_session: str | None = None) -> mail.Message:
    return mail.store(
        dash.slug, body, from_session=SENDER, from_agent="claude", to_session=to_session
    )


def test_mail_lands_in_an_idle_pane_and_enter_submits_it(dash: Dashboard) -> None:
    engine = DeliveryEngine(dash)
    pane = demo(dash, engine)
    message = send_mail(dash, "please\nlook at \x1b[31mthe tests", to_session=pane.session_id)
    engine.sweep()
    assert engine.inflight[pane.short].phase is Phase.TYPED
    # Consumed once typed, not before.
    assert not message.path.exists()
    assert (message.path.parent / "read" / message.path.name).exists()
    drive(dash, engine, lambda: "Working on: [zirv ▸ mail from claude/abcd1234" in text(pane))
    # Control characters were flattened: one line, and the ESC became a space,
    # so the colour sequence shows as plain text instead of driving the pane.
    flat = text(pane).replace("\n", "")
    assert "information, not instruction]" in flat
    assert "please look at [31mthe tests" in flat
    # The pane goes idle after its turn; then it can take text again.
    drive(dash, engine, lambda: pane.short not in engine.inflight)
    assert engine.injectable(pane)
    assert engine.unread.get(pane.short) == 0
    assert not dash.errors.entries


def test_enter_is_a_separate_write_after_the_line(dash: Dashboard) -> None:
    engine = DeliveryEngine(dash)
    pane = dash.spawn("demo", argv=[sys.executable, "-c", RAW_CHUNKS])
    drive(dash, engine, lambda: pane.is_idle())
    assert engine.injectable(pane) and pane.pty is not None
    # What the dashboard writes is the fact; how the child's reads split it
    # depends on when the child is scheduled.
    writes: list[bytes] = []
    write = pane.pty.write

    def spy(data: bytes) -> None:
        writes.append(bytes(data))
        write(data)

    pane.pty.write = spy  # type: ignore[method-assign]
    assert engine.inject(pane, "[zirv ▸ test] hello", kind="nudge")
    drive(dash, engine, lambda: "\\r'" in text(pane))
    assert writes == ["[zirv ▸ test] hello".encode(), b"\r"]
    rows = [line.removeprefix("demo> ").strip() for line in text(pane).splitlines()]
    chunks = "".join(row for row in rows if row.startswith("chunk:"))
    assert "hello" in chunks and chunks.index("hello") < chunks.index("\\r'")
    # Output after the Enter confirms it: no retry, no error.
    drive(dash, engine, lambda: engine.inflight[pane.short].phase is Phase.AWAITING_TURN)
    assert not engine.inflight[pane.short].retried
    assert not dash.errors.entries


def test_nothing_is_typed_into_a_busy_pane_until_it_goes_idle(
    dash: Dashboard, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZIRV_DEMO_WORK_SECS", "1.2")
    engine = DeliveryEngine(dash)
    pane = dash.spawn("demo", prompt="a long task")
    drive(dash, engine, lambda: "Working on: a long task" in text(pane))
    assert pane.state() is PaneState.WORKING
    message = send_mail(dash, "wait for me", to_session=pane.session_id)
    engine.sweep()
    assert pane.short not in engine.inflight
    assert message.path.exists()
    assert pane.short in engine.waiting and engine.unread[pane.short] == 1
    assert "wait for me" not in text(pane)
    # The idle boundary delivers it.
    drive(dash, engine, lambda: pane.short in engine.inflight)
    drive(dash, engine, lambda: "Working on: [zirv ▸ mail" in text(pane))
    assert not message.path.exists()


def test_nothing_is_typed_into_a_pane_showing_a_prompt(dash: Dashboard) -> None:
    engine = DeliveryEngine(dash)
    pane = demo(dash, engine)
    pane.send(b"/ask\r", typed=False)
    drive(dash, engine, lambda: pane.state() is PaneState.NEEDS_YOU)
    before = text(pane)
    message = send_mail(dash, "not now", to_session=pane.session_id)
    engine.sweep()
    assert not engine.injectable(pane)
    assert pane.short not in engine.inflight and message.path.exists()
    # Still a prompt well past the quiet time: nothing typed.
    deadline = time.monotonic() + 0.6
    drive(dash, engine, lambda: time.monotonic() > deadline)
    assert text(pane) == before
    assert message.path.exists()


def test_nothing_is_typed_over_an_operator_draft(dash: Dashboard) -> None:
    engine = DeliveryEngine(dash)
    pane = demo(dash, engine)
    pane.send(b"my own dra")  # the operator typing, not submitted
    drive(dash, engine, lambda: pane.is_idle())
    message = send_mail(dash, "later please", to_session=pane.session_id)
    engine.sweep()
    assert not engine.injectable(pane)
    assert message.path.exists() and "later please" not in text(pane)
    # Once the operator submits and the pane's turn ends, delivery resumes.
    pane.send(b"ft\r")
    drive(dash, engine, lambda: "Working on: my own draft" in text(pane))
    drive(dash, engine, lambda: pane.short in engine.inflight)
    drive(dash, engine, lambda: "Working on: [zirv ▸ mail" in text(pane))


def test_unconfirmed_submission_retries_once_then_mails_the_sender(dash: Dashboard) -> None:
    engine = DeliveryEngine(dash)
    pane = dash.spawn("demo", argv=[sys.executable, "-c", RAW_SILENT])
    drive(dash, engine, lambda: pane.is_idle())
    send_mail(dash, "are you there", to_session=pane.session_id)
    engine.sweep()
    item = engine.inflight[pane.short]
    drive(dash, engine, lambda: item.retried)
    drive(dash, engine, lambda: pane.short not in engine.inflight, timeout=5)
    assert dash.errors.entries
    error = dash.errors.entries[0].text
    assert f"text was typed into pane {pane.short} (demo)" in error
    assert "submission is unconfirmed" in error
    back = mail.list_messages(dash.slug, agent="claude", short="abcd1234")
    assert len(back) == 1 and back[0].from_agent == "zirv"
    assert "submission is unconfirmed" in back[0].body


def test_the_orchestrator_gets_one_advisory_never_bodies(dash: Dashboard) -> None:
    engine = DeliveryEngine(dash)
    orch = demo(dash, engine, role="orchestrator")
    first = send_mail(dash, "secret body one")
    engine.sweep()
    drive(
        dash,
        engine,
        lambda: "Working on: [zirv ▸ mail] 1 unread from claude/abcd1234" in text(orch),
    )
    drive(dash, engine, lambda: orch.short not in engine.inflight)
    engine.sweep()
    assert orch.short not in engine.inflight  # same newest unread: not advised again
    assert text(orch).count("[zirv ▸ mail]") == 2  # the typed line and the echo of work
    assert "secret body" not in text(orch)
    assert first.path.exists()  # never consumed for the orchestrator
    send_mail(dash, "secret body two")
    engine.sweep()
    drive(dash, engine, lambda: "[zirv ▸ mail] 2 unread" in text(orch))
    assert "secret body" not in text(orch)


def test_operator_nudge_to_a_busy_pane_is_queued_until_idle(
    dash: Dashboard, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZIRV_DEMO_WORK_SECS", "0.8")
    engine = DeliveryEngine(dash)
    pane = dash.spawn("demo", prompt="busy work")
    drive(dash, engine, lambda: "Working on: busy work" in text(pane))
    assert engine.nudge(pane, "first note") is NudgeResult.QUEUED
    assert engine.nudge(pane, "second note") is NudgeResult.QUEUED
    assert "first note" not in text(pane)
    drive(dash, engine, lambda: pane.short in engine.inflight)
    drive(dash, engine, lambda: "Working on: [zirv ▸ nudge from operator] first note" in text(pane))
    assert "second note" not in text(pane)
    drive(dash, engine, lambda: "second note" in text(pane))
    assert not engine.nudges


def test_operator_nudge_to_an_idle_pane_is_typed_now(dash: Dashboard) -> None:
    engine = DeliveryEngine(dash)
    pane = demo(dash, engine)
    assert engine.nudge(pane, "hello\nthere") is NudgeResult.DELIVERED
    drive(
        dash, engine, lambda: "Working on: [zirv ▸ nudge from operator] hello there" in text(pane)
    )


def test_nudge_to_an_ended_pane_is_an_error(dash: Dashboard) -> None:
    engine = DeliveryEngine(dash)
    pane = demo(dash, engine)
    pane.send(b"/quit\r", typed=False)
    drive(dash, engine, lambda: not pane.alive)
    assert engine.nudge(pane, "too late") is NudgeResult.ENDED
    assert "nudge: target ended before it could be delivered" in dash.errors.entries[0].text


def test_nudge_markers_are_claimed_and_announced(dash: Dashboard) -> None:
    engine = DeliveryEngine(dash)
    pane = demo(dash, engine)
    nudge.write_marker(pane.short, "abcd1234")
    assert engine.sweep() == [f"nudge received for {pane.short} -- see inbox"]
    assert not nudge.has_marker(pane.short)
    assert engine.sweep() == []


def test_mail_disabled_delivers_nothing(tmp_path: Path) -> None:
    settings = load_settings(
        tmp_path, flags={"dash": {"idle_quiet_ms": 300}, "mail": {"enabled": False}}
    )
    board = Dashboard(settings, tmp_path, manage_state=True)
    try:
        engine = DeliveryEngine(board)
        pane = demo(board, engine)
        message = send_mail(board, "ignored", to_session=pane.session_id)
        engine.sweep()
        assert pane.short not in engine.inflight and message.path.exists()
    finally:
        board.shutdown_all(grace=0.2)


def test_mail_is_never_typed_into_a_plain_shell(dash: Dashboard) -> None:
    engine = DeliveryEngine(dash)
    # (A stand-in for sh that a SIGTERM ends at teardown.)
    prompt_then_read = "import sys; sys.stdout.write('$ '); sys.stdout.flush(); sys.stdin.read()"
    shell = [sys.executable, "-c", prompt_then_read]
    pane = dash.spawn("shell", argv=shell)
    drive(dash, engine, lambda: pane.is_idle())
    orch = dash.spawn("shell", argv=shell, role="orchestrator")
    drive(dash, engine, lambda: orch.is_idle())
    message = send_mail(dash, "; touch pwned", to_session=pane.session_id)
    send_mail(dash, "for everyone")
    engine.sweep()
    assert not engine.inflight and message.path.exists()
    assert engine.unread[pane.short] == 2 and engine.unread[orch.short] == 1
    assert not engine.pending_panes()


def test_no_enter_after_the_operator_typed_into_the_line(dash: Dashboard) -> None:
    engine = DeliveryEngine(dash)
    pane = demo(dash, engine)
    assert engine.nudge(pane, "note") is NudgeResult.DELIVERED
    pane.send(b" and mine")  # the operator, within the 50 ms before the Enter
    item = engine.inflight[pane.short]
    drive(dash, engine, lambda: item.phase is Phase.AWAITING_TURN)
    drive(dash, engine, lambda: pane.short not in engine.inflight)
    assert "Working on" not in text(pane)
    assert "[zirv ▸ nudge from operator] note and mine" in text(pane)
    assert not engine.injectable(pane)  # the operator's draft is still there
