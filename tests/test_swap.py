"""The dashboard's swap pipeline without a UI: real panes on real PTYs."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from tests.apphelpers import tools_only_path
from zirv_dash.config.layers import AdapterGate, load_settings
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.handover import plan as handover_plan
from zirv_dash.handover import swap
from zirv_dash.handover.files import HandoverRefused
from zirv_dash.handover.plan import SwapPlan
from zirv_dash.panes import registry
from zirv_dash.panes.pane import Pane
from zirv_dash.panes.procinfo import pid_exists
from zirv_dash.runtime import swaps

pytestmark = pytest.mark.timeout(30)

SID = "5a6b7c8d-0000-4000-8000-000000000001"


@pytest.fixture(autouse=True)
def plain_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH with git, grep and cat only (no vendor CLIs), a plain shell."""
    return tools_only_path(tmp_path, monkeypatch)


def make_dash(repo: Path, manage_state: bool = True) -> Dashboard:
    settings = load_settings(repo, flags={"dash": {"idle_quiet_ms": 200}})
    return Dashboard(settings, repo, AdapterGate(), manage_state=manage_state)


def pump_until(pane: Pane, needle: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while needle not in "\n".join(pane.model_view.lines()):
        if time.monotonic() > deadline:
            screen = "\n".join(pane.model_view.lines())
            raise AssertionError(f"{needle!r} not on screen:\n{screen}")
        pane.read_available()
        pane.pump(65536)
        time.sleep(0.01)


def test_demo_to_shell_and_back_keeps_short_record_and_session(tmp_path: Path) -> None:
    dash = make_dash(tmp_path)
    pane = dash.spawn("demo", prompt="add a login form", session_id=SID)
    try:
        pump_until(pane, "Done.")
        assert pane.pty is not None
        old_pid = pane.pty.pid
        old_model = pane.model_view

        plan = swap.prepare(swap.capture(pane), "shell", None, dash.gate)
        assert plan.packet_file is not None and plan.packet_file.is_file()
        assert stat.S_IMODE(plan.packet_file.stat().st_mode) == 0o600
        packet = plan.packet_file.read_text()
        assert "add a login form" in packet and "Working on: add a login form" in packet
        assert plan.argv == ["/bin/sh"]  # the packet never goes on a shell's argv
        assert not any("Handover notes" in arg for arg in plan.argv)

        successor = swaps.start_successor(dash, pane, plan)
        assert pid_exists(old_pid)  # the old child is untouched until the successor runs
        old_pty = swaps.install_successor(dash, pane, successor)
        assert old_pty is not None and old_pty.pid == old_pid
        assert swap.retire(old_pty, plan.old_quit_sequence) == 0  # demo quits on /quit
        assert not pid_exists(old_pid)

        assert pane.short == SID[:8] and pane.session_id == SID
        assert pane.agent == "shell" and pane.model is None
        assert pane.model_view is not old_model and pane.alive
        assert dash.panes == [pane]
        pump_until(pane, "notes from demo saved to")
        sock = registry.socket_path(pane.short)
        pane.send(
            b'grep -q "add a login form" "$ZIRV_HANDOVER_PACKET" && echo task-$((6*7))\r'
            + f'[ "$ZIRV_CTX_SOCKET" = "{sock}" ] && echo sock-$((6*7))\r'.encode()
        )
        pump_until(pane, "sock-42")
        assert "task-42" in "\n".join(pane.model_view.lines())

        record = registry.read_record(registry.record_path(pane.short))
        assert (record.short, record.session, record.agent) == (pane.short, SID, "shell")
        assert pane.pty is not None and record.pid == pane.pty.pid

        plan2 = swap.prepare(swap.capture(pane), "demo", "demo-deep", dash.gate)
        assert plan2.mode == "first_prompt" and plan2.argv[-2:] == ["--model", "demo-deep"]
        old_pty = swaps.install_successor(dash, pane, swaps.start_successor(dash, pane, plan2))
        assert old_pty is not None
        swap.retire(old_pty, plan2.old_quit_sequence, grace=0.5)
        pump_until(pane, "Done.")
        model = pane.model_view
        history = [model.history_text(i) for i in range(model.history_size)]
        assert any("model demo-deep" in line for line in history + model.lines())
        assert any("Working on: # Handover notes (zirv)" in line for line in history)
        record = registry.read_record(registry.record_path(pane.short))
        assert (record.short, record.agent, record.extra.get("model")) == (
            pane.short,
            "demo",
            "demo-deep",
        )
        assert pane.first_prompt == "add a login form"  # the task survives every swap
    finally:
        dash.shutdown_all(grace=0.5)


def test_a_successor_that_cannot_start_leaves_the_pane_untouched(tmp_path: Path) -> None:
    dash = make_dash(tmp_path)
    pane = dash.spawn("demo", session_id=SID)
    try:
        pump_until(pane, "/quit to leave")
        before = (pane.pty, pane.model_view, pane.agent, pane.spec)
        bad = SwapPlan("shell", None, "first_prompt", ["/nonexistent/zirv-no-such-shell"])
        with pytest.raises(swap.SwapFailed, match="could not start"):
            swaps.start_successor(dash, pane, bad)
        assert (pane.pty, pane.model_view, pane.agent, pane.spec) == before
        assert pane.pty is not None and pid_exists(pane.pty.pid)
        record = registry.read_record(registry.record_path(pane.short))
        assert record.agent == "demo" and record.pid == pane.pty.pid
    finally:
        dash.shutdown_all(grace=0.5)


def test_precheck_refuses_missing_disabled_unknown_and_current(tmp_path: Path) -> None:
    dash = make_dash(tmp_path, manage_state=False)
    pane = dash.spawn("shell", session_id=SID)
    try:
        gate = AdapterGate(disabled={"demo": "disabled in /x/.settings.toml"})
        with pytest.raises(HandoverRefused, match="claude is not installed"):
            swap.precheck(pane, "claude", "opus", gate)
        with pytest.raises(HandoverRefused, match="demo is disabled"):
            swap.precheck(pane, "demo", None, gate)
        with pytest.raises(HandoverRefused, match="unknown harness 'nope'"):
            swap.precheck(pane, "nope", None, gate)
        with pytest.raises(HandoverRefused, match="already runs shell/–"):
            swap.precheck(pane, "shell", "–", gate)
        with pytest.raises(HandoverRefused, match="takes no model"):
            swap.precheck(pane, "shell", "gpt-5.4-mini", AdapterGate())
        swap.precheck(pane, "demo", "demo-cheap", AdapterGate())  # fine
    finally:
        dash.shutdown_all(grace=0.5)
    with pytest.raises(HandoverRefused, match="no running child"):
        swap.precheck(pane, "demo", None, AdapterGate())


def test_claude_panes_pin_the_session_so_a_model_swap_resumes(
    tmp_path: Path, plain_path: Path
) -> None:
    fake = plain_path / "claude"
    fake.write_text('#!/bin/sh\necho claude-fake "$@"\nexec cat\n')
    fake.chmod(0o755)
    dash = make_dash(tmp_path, manage_state=False)
    pane = dash.spawn("claude", model="sonnet", session_id=SID)
    try:
        argv = pane.spec.argv
        assert argv[0] == "claude" and argv[argv.index("--session-id") + 1] == SID
        assert swap.resume_id(pane) == SID
        plan = swap.prepare(swap.capture(pane), "claude", "opus", dash.gate)
        assert plan.mode == "resume" and plan.packet_file is None
        assert plan.argv[:5] == ["claude", "--resume", SID, "--model", "opus"]
        # A different harness gets the packet instead, off argv where it can.
        plan = swap.prepare(swap.capture(pane), "shell", None, dash.gate)
        assert plan.argv == ["/bin/sh"]
        swap.discard_packet(plan)
        assert plan.packet_file is not None and not plan.packet_file.exists()
    finally:
        dash.shutdown_all(grace=0.5)
    demo = make_dash(tmp_path, manage_state=False)
    other = demo.spawn("demo", session_id=SID)
    try:
        assert SID not in other.spec.argv and swap.resume_id(other) is None
    finally:
        demo.shutdown_all(grace=0.5)


def test_capture_takes_screen_and_the_newest_scrollback(tmp_path: Path) -> None:
    dash = make_dash(tmp_path, manage_state=False)
    pane = dash.spawn("shell", session_id=SID)
    try:
        pane.send(b"i=0; while [ $i -lt 300 ]; do i=$((i+1)); echo n$i; done\r")
        pump_until(pane, "n300")
        snap = swap.capture(pane, scrollback_lines=50)
        assert len(snap.scrollback_lines) == 50
        assert snap.scrollback_lines[-1].startswith("n")
        assert "n300" in snap.screen_lines
        assert snap.task is None and snap.cwd == str(tmp_path)
    finally:
        dash.shutdown_all(grace=0.5)


def test_retire_kills_a_child_that_ignores_its_quit_sequence(tmp_path: Path) -> None:
    dash = make_dash(tmp_path, manage_state=False)
    pane = dash.spawn("shell", session_id=SID)
    try:
        pump_until(pane, "$")
        assert pane.pty is not None
        pid = pane.pty.pid
        started = time.monotonic()
        swap.retire(pane.pty, b"", grace=5.0)  # no quit sequence: straight to the ladder
        assert time.monotonic() - started < 3.0
        assert not pid_exists(pid)
    finally:
        dash.shutdown_all(grace=0.5)


def test_swap_book_defers_until_idle_and_sweeps_packets(tmp_path: Path) -> None:
    dash = make_dash(tmp_path, manage_state=False)
    pane = dash.spawn("shell", session_id=SID)
    try:
        book = swap.SwapBook()
        request = swap.SwapRequest(pane.short, "demo", None)
        assert book.defer(request) is None
        assert book.note(pane.short) == swap.PENDING_NOTE
        pane.send(b"echo hi\r")
        assert book.due(dash.panes, now=time.monotonic()) == []  # just typed: busy
        pump_until(pane, "hi")
        deadline = time.monotonic() + 20
        while not pane.is_idle():
            assert time.monotonic() < deadline, f"never idle: {pane.state()}"
            # Keep reading: idle needs the shell's prompt back on screen.
            pane.read_available()
            pane.pump(1 << 16)
            time.sleep(0.05)
        assert book.due(dash.panes) == [request] and not book.pending
        book.running[pane.short] = request
        assert book.note(pane.short) == swap.RUNNING_NOTE and book.busy(pane.short)

        packet_dir = handover_plan.default_packet_dir()
        files = [packet_dir / f"p{i}.md" for i in range(3)]
        for path in files:
            path.write_text("x")
            book.keep_packet(pane.short, SwapPlan("shell", None, "first_prompt", [], {}, path))
        book.sweep_packets({pane.short})
        assert [p.exists() for p in files] == [False, False, True]
        book.sweep_packets(set())
        assert not files[2].exists() and not book.packets
    finally:
        dash.shutdown_all(grace=0.5)
    assert os.environ["SHELL"] == "/bin/sh"


def test_retire_can_send_the_enter_of_the_quit_sequence_separately(tmp_path: Path) -> None:
    dash = make_dash(tmp_path, manage_state=False)
    pane = dash.spawn("demo", session_id=SID)
    try:
        pump_until(pane, "/quit to leave")
        assert pane.pty is not None
        started = time.monotonic()
        assert swap.retire(pane.pty, b"/quit\r", grace=5.0, defer_submit=True) == 0
        assert time.monotonic() - started < 3.0  # it quit; it was not killed
    finally:
        dash.shutdown_all(grace=0.5)


def test_old_packet_files_are_swept(tmp_path: Path) -> None:
    packet_dir = handover_plan.default_packet_dir()
    old, new, other = (packet_dir / n for n in ("handover-1-a.md", "handover-2-b.md", "x.md"))
    for path in (old, new, other):
        path.write_text("notes")
    week = swap.PACKET_MAX_AGE_SECS
    os.utime(old, (time.time() - week - 60,) * 2)
    os.utime(other, (time.time() - week - 60,) * 2)
    assert swap.sweep_old_packets() == 1
    assert not old.exists() and new.exists() and other.exists()
