"""Handover in the live dashboard (Pilot): picker, swaps, refusals, CLI round trip."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Label, OptionList

from screens.app import ZirvApp
from screens.handover import EMPTY_TEXT, HandoverScreen
from tests.apphelpers import dash_screen, make_app, screen_text, tools_only_path, wait_for
from widgets.pane_header import PaneHeader
from zirv_dash.attention.states import PaneState
from zirv_dash.config.layers import AdapterGate
from zirv_dash.handover import files as handover_files
from zirv_dash.handover import plan as handover_plan
from zirv_dash.handover import swap
from zirv_dash.handover.files import HandoverRequest
from zirv_dash.panes import registry
from zirv_dash.panes.pane import Pane
from zirv_dash.panes.procinfo import pid_exists
from zirv_dash.runtime import successor_trial, swaps

pytestmark = pytest.mark.timeout(60)

ORCH = "6a7b8c9d-0000-4000-8000-000000000001"
WORKER = "7b8c9d0e-0000-4000-8000-000000000002"


@pytest.fixture(autouse=True)
def plain_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No vendor CLIs on PATH (only git, grep, cat), a plain shell, a quick demo."""
    tools_only_path(tmp_path, monkeypatch)
    monkeypatch.setenv("ZIRV_DEMO_SPINNER", "0")


def live_app(repo: Path, agent: str = "demo", **kw: Any) -> ZirvApp:
    """A dashboard that publishes registry records (and so answers CLI requests)."""
    app = make_app(repo, agent=agent, flags={"dash": {"idle_quiet_ms": 300}}, **kw)
    app.options.manage_state = True
    return app


def record_of(pane: Pane) -> registry.SessionRecord:
    return registry.read_record(registry.record_path(pane.short))


def all_text(pane: Pane) -> str:
    model = pane.model_view
    history = [model.history_text(i) for i in range(model.history_size)]
    return "\n".join([*history, *model.lines()])


async def pick(pilot: Any, app: ZirvApp, label: str) -> None:
    """Open the picker on the focused pane and press Enter on the row `label`."""
    await pilot.press("ctrl+a", "o")
    await wait_for(pilot, lambda: isinstance(app.screen, HandoverScreen))
    picker = app.screen
    assert isinstance(picker, HandoverScreen)
    texts = [f"{r.agent} / {r.tier} ({r.model})" for r in picker.rows]
    picker.query_one("#handover-rows", OptionList).highlighted = texts.index(label)
    await pilot.press("enter")
    await wait_for(pilot, lambda: not isinstance(app.screen, HandoverScreen))


async def test_swap_demo_to_shell_and_back_keeps_short_id_and_record(tmp_path: Path) -> None:
    app = live_app(tmp_path, extra=[("demo", "add a login form")], session_ids=[ORCH, WORKER])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: len(dash.panes) == 2)
        pane = dash.panes[1]
        await pilot.press("ctrl+a", "2")
        await wait_for(pilot, lambda: "Done." in screen_text(pane) and pane.is_idle())
        assert pane.pty is not None
        demo_pid = pane.pty.pid
        short = pane.short

        await pilot.press("ctrl+a", "o")
        await wait_for(pilot, lambda: isinstance(app.screen, HandoverScreen))
        picker = app.screen
        assert isinstance(picker, HandoverScreen)
        assert picker.query_one(".dialog").border_title == f"handover → pane {short}"
        texts = [f"{r.agent} / {r.tier} ({r.model})" for r in picker.rows]
        assert texts == [
            "shell / standard (–)",
            "demo / cheap (demo-cheap)",
            "demo / standard (demo-standard)",
            "demo / deep (demo-deep)",
        ]
        await pilot.press("escape")  # Esc cancels: nothing changes
        await wait_for(pilot, lambda: not isinstance(app.screen, HandoverScreen))
        assert pane.agent == "demo" and pane.pty.pid == demo_pid

        await pick(pilot, app, "shell / standard (–)")
        await wait_for(pilot, lambda: pane.agent == "shell" and "$" in screen_text(pane))
        await wait_for(pilot, lambda: not pid_exists(demo_pid))  # /quit, then gone
        assert pane.short == short and dash.panes[1] is pane and len(dash.panes) == 2
        assert pane.pty is not None and pane.pty.argv == ["/bin/sh"]  # no packet on argv
        shell_pid = pane.pty.pid
        record = record_of(pane)
        assert (record.short, record.session, record.agent, record.pid) == (
            short,
            WORKER,
            "shell",
            shell_pid,
        )
        assert "notes from demo saved to" in screen_text(pane)
        pane.send(b'grep -q "add a login form" "$ZIRV_HANDOVER_PACKET" && echo ok-$((6*7))\r')
        await wait_for(pilot, lambda: "ok-42" in screen_text(pane))

        await pick(pilot, app, "demo / deep (demo-deep)")
        await wait_for(pilot, lambda: pane.agent == "demo" and "Done." in screen_text(pane))
        await wait_for(pilot, lambda: not pid_exists(shell_pid))
        assert "model demo-deep" in all_text(pane)
        assert "Working on: # Handover notes (zirv)" in all_text(pane)
        record = record_of(pane)
        assert (record.short, record.agent, record.extra.get("model")) == (
            short,
            "demo",
            "demo-deep",
        )
        assert pane.pty is not None and record.pid == pane.pty.pid
        assert dash.panes[0].agent == "demo" and dash.panes[0].alive  # neighbour untouched
        assert not [e.text for e in dash.errors.entries if e.text.startswith("handover")]


async def test_refusals_leave_the_original_pane_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = live_app(tmp_path, session_ids=[ORCH])
    app.options.gate = AdapterGate(disabled={"shell": "disabled in /x/.zirv/.settings.toml"})
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: len(dash.panes) == 1 and dash.panes[0].is_idle())
        pane = dash.panes[0]
        before = (pane.pty, pane.model_view, pane.agent, record_of(pane).pid)

        for agent, model, reason in [
            ("claude", "opus", "harness claude is not installed (`claude` not found on PATH)"),
            ("shell", None, "harness shell is disabled"),
            ("nope", None, "unknown harness 'nope'"),
            ("demo", "--inject", "looks like a flag"),
        ]:
            ack = screen.engine.swaps.request(pane.short, agent, model)
            assert not ack.ok and reason in ack.reason, ack
            assert dash.errors.entries[0].text.startswith("handover: ")
            assert reason in dash.errors.entries[0].text

        # A step failing after planning (the successor cannot start) also keeps it.
        def cannot_start(*_: Any) -> Any:
            raise swap.SwapFailed("the successor demo could not start: no such file")

        monkeypatch.setattr(swaps, "start_successor", cannot_start)
        ack = screen.engine.swaps.request(pane.short, "demo", "demo-deep")
        assert ack.ok and not ack.stored  # accepted; the failure comes from the worker
        await wait_for(pilot, lambda: "could not start" in dash.errors.entries[0].text)
        assert dash.errors.entries[0].text.startswith("handover: the successor demo")
        assert not list(handover_plan.default_packet_dir().iterdir())  # its packet was removed

        assert (pane.pty, pane.model_view, pane.agent, record_of(pane).pid) == before
        assert pane.pty is not None and pid_exists(pane.pty.pid) and pane.alive
        await pilot.press(*"still here", "enter")
        await wait_for(pilot, lambda: "Working on: still here" in screen_text(pane))

        # With every harness disabled or missing the picker says so.
        dash.gate.disabled["demo"] = "disabled in /x/.zirv/.settings.toml"
        await pilot.press("ctrl+a", "o")
        await wait_for(pilot, lambda: isinstance(app.screen, HandoverScreen))
        empty = app.screen.query_one("#handover-empty", Label)
        assert str(empty.render()) == EMPTY_TEXT
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HandoverScreen))


async def cli(repo: Path, *args: str) -> tuple[int, str, str]:
    env = dict(os.environ, ZIRV_HANDOVER_WAIT_SECS="20")
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "zirv_dash.cli.main",
        "ctx",
        "handover",
        *args,
        cwd=repo,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), timeout=30)
    return proc.returncode or 0, out.decode(), err.decode()


async def test_cli_request_and_ack_round_trip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = live_app(tmp_path, session_ids=[ORCH])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: len(dash.panes) == 1 and dash.panes[0].is_idle())
        pane = dash.panes[0]
        short = pane.short

        # Busy pane (waiting for an answer): the request is stored and runs at the
        # next idle boundary, after the question is answered.
        await pilot.press(*"/ask", "enter")
        await wait_for(pilot, lambda: pane.state() is PaneState.NEEDS_YOU)
        code, out, err = await cli(tmp_path, short, "--agent", "shell")
        assert code == 0, err
        assert f"handover accepted: pane {short} switches demo/demo-standard → shell/–" in out
        assert pane.agent == "demo"
        header = screen.query_one(PaneHeader)
        await wait_for(pilot, lambda: header.facts.extra == swap.PENDING_NOTE)
        assert pane.agent == "demo"
        await pilot.press("y", "enter")
        await wait_for(pilot, lambda: pane.agent == "shell")
        await wait_for(pilot, lambda: header.facts.extra == "")
        assert record_of(pane).agent == "shell" and record_of(pane).short == short

        # Idle pane: done at once, answered after the successor started.
        await wait_for(pilot, lambda: "$" in screen_text(pane) and pane.is_idle())
        code, out, err = await cli(tmp_path, short[:6], "--agent", "demo", "--model", "deep")
        assert code == 0, err
        assert f"handover done: pane {short} shell/– → demo/demo-deep" in out
        assert pane.agent == "demo" and record_of(pane).agent == "demo"

        # Garbage and refused requests are answered too, and change nothing; with
        # the 1 s fallback tick switched off, the watchfiles worker alone claims them.
        monkeypatch.setattr(screen.engine.swaps, "tick", lambda: None)
        handover_files.write_request(short, HandoverRequest("nope"))
        await wait_for(pilot, lambda: handover_files.ack_path(short).exists())
        ack = handover_files.claim_ack(short)
        assert ack is not None and not ack.ok and "unknown harness 'nope'" in ack.reason
        handover_files.request_path(short).write_text("{not json")
        await wait_for(pilot, lambda: handover_files.ack_path(short).exists())
        ack = handover_files.claim_ack(short)
        assert ack is not None and not ack.ok and "not valid JSON" in ack.reason
        assert pane.agent == "demo" and pane.alive


async def test_busy_pane_defers_or_forces_after_confirmation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZIRV_DEMO_WORK_SECS", "30")
    monkeypatch.setenv("ZIRV_DEMO_SPINNER", "1")
    monkeypatch.setattr(swap, "QUIT_GRACE", 0.3)  # a mid-task demo ignores /quit
    # The forced successor works on the packet for 30 s: working is its proof.
    monkeypatch.setattr(successor_trial, "LIMIT", 2.5)
    app = live_app(tmp_path, session_ids=[ORCH])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: len(dash.panes) == 1 and dash.panes[0].is_idle())
        pane = dash.panes[0]
        assert pane.pty is not None
        busy_pid = pane.pty.pid
        await pilot.press(*"long task", "enter")
        await wait_for(pilot, lambda: pane.state() is PaneState.WORKING)

        # Enter on a busy pane: queued for its next idle boundary.
        await pick(pilot, app, "shell / standard (–)")
        header = screen.query_one(PaneHeader)
        await wait_for(pilot, lambda: header.facts.extra == swap.PENDING_NOTE)
        assert pane.agent == "demo" and pane.short in screen.engine.swaps.book.pending

        # f asks first; n backs out, y forces the swap now (replacing the queued one).
        await pilot.press("ctrl+a", "o")
        await wait_for(pilot, lambda: isinstance(app.screen, HandoverScreen))
        picker = app.screen
        assert isinstance(picker, HandoverScreen)
        note = str(picker.query_one("#handover-note", Label).render())
        assert note.startswith("⤓ switching to shell/– when idle")
        texts = [f"{r.agent} / {r.tier} ({r.model})" for r in picker.rows]
        options = picker.query_one("#handover-rows", OptionList)
        options.highlighted = texts.index("demo / deep (demo-deep)")
        confirm = picker.query_one("#handover-confirm", Label)
        await pilot.press("f")
        await wait_for(pilot, lambda: "now, interrupting" in str(confirm.render()))
        assert confirm.display
        await pilot.press("n")
        await wait_for(pilot, lambda: not confirm.display)
        assert app.screen is picker and pane.agent == "demo" and pane.model == "demo-standard"
        await pilot.press("f", "y")
        await wait_for(pilot, lambda: pane.model == "demo-deep")
        assert pane.pty is not None and pane.pty.pid != busy_pid
        assert not screen.engine.swaps.book.pending  # superseded
        await wait_for(pilot, lambda: header.facts.extra == "")
        await wait_for(pilot, lambda: not pid_exists(busy_pid))  # killed after the grace
