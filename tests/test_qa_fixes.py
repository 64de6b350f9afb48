"""Words and keys the QA pass found wrong: the quit dialog's states, mail
compose losing typed text, restore rows, the header's counts and tabs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
from textual.app import App, ComposeResult
from textual.widgets import Static

from screens.dialog import KeyHints
from screens.mail import MailScreen, MailTarget, TargetList
from screens.nudge import DraftArea
from screens.quit_confirm import QuitConfirmScreen, body_of, title_of
from screens.restore import row_label
from tests.apphelpers import wait_for
from tests.test_dialogs import header_line
from tests.test_prompt_patterns import _await, _pane
from widgets.header_bar import HeaderFacts, Tab
from zirv_dash.attention.states import PaneState
from zirv_dash.config.layers import MailSettings
from zirv_dash.dash.roster import RosterPane
from zirv_dash.harnesses import adapters
from zirv_dash.mail import mailbox as mail
from zirv_dash.panes import escapes
from zirv_dash.panes.pane import Pane

SLUG = "qa-repo"
OWN = "0f0f0f0f-0000-4000-8000-000000000001"


# -- quit dialog ------------------------------------------------------------------------


def test_quit_dialog_names_each_state_and_counts_honestly() -> None:
    busy = [
        ("orch (claude)", PaneState.NEEDS_YOU),
        ("wrk (gemini)", PaneState.NEEDS_YOU),
        ("wrk (codex)", PaneState.UNKNOWN),
    ]
    title = title_of(busy)
    assert "working" not in title
    assert title.endswith("3 panes not idle: 2 need you · 1 unknown")
    body = body_of(busy).plain.splitlines()
    assert body == [
        "▲ orch (claude) · needs you",
        "▲ wrk (gemini) · needs you",
        "? wrk (codex) · unknown",
    ]


def test_quit_dialog_title_for_one_kind() -> None:
    assert title_of([("a (demo)", PaneState.WORKING)]) == "⚠ quit zirv dash · 1 working"
    assert title_of([("a", PaneState.NEEDS_YOU)] * 2) == "⚠ quit zirv dash · 2 need you"
    mixed = title_of([("a", PaneState.WORKING), ("b", PaneState.STARTING)])
    assert mixed == "⚠ quit zirv dash · 2 panes not idle: 1 working · 1 starting"


# -- mail compose -----------------------------------------------------------------------


def targets(count: int) -> list[MailTarget]:
    return [
        MailTarget(f"{i:08x}", "demo", f"{i:08x}-0000-4000-8000-000000000000", f"wrk {i}")
        for i in range(1, count + 1)
    ]


class MailApp(App[None]):
    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count

    def on_mount(self) -> None:
        self.push_screen(
            MailScreen(
                SLUG,
                MailSettings(),
                from_session=OWN,
                from_agent="zirv",
                targets=targets(self.count),
            )
        )


def overlay_of(app: App[Any]) -> MailScreen:
    screen = app.screen
    assert isinstance(screen, MailScreen)
    return screen


def sent_bodies() -> list[str]:
    return [m.body.strip() for m in mail.list_messages(SLUG)]


async def test_text_typed_in_the_target_list_lands_in_the_draft(tmp_path: Path) -> None:
    app = MailApp(count=3)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MailScreen))
        overlay = overlay_of(app)
        await pilot.press("c", "down", "down", "down", "tab")
        await wait_for(pilot, lambda: overlay.query_one(TargetList).has_focus)
        await pilot.press(*"mail body one")
        draft = overlay.query_one(DraftArea)
        await wait_for(pilot, lambda: draft.text == "mail body one")
        assert draft.has_focus
        await pilot.press("enter")
        await wait_for(pilot, lambda: sent_bodies() == ["mail body one"])
        assert not overlay.has_class("composing")


async def test_enter_in_the_target_list_picks_and_the_footer_says_so(tmp_path: Path) -> None:
    app = MailApp(count=3)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, MailScreen))
        overlay = overlay_of(app)
        hints = overlay.query_one("#mail-compose-hints", KeyHints)
        await pilot.press("c")
        assert ("⏎", "send") in hints.hints
        await pilot.press("shift+tab")
        listing = overlay.query_one(TargetList)
        await wait_for(pilot, lambda: listing.has_focus)
        await wait_for(pilot, lambda: ("⏎", "send") not in hints.hints)
        assert any(key == "⏎" and "pick" in label for key, label in hints.hints)
        await pilot.press("down", "enter")
        draft = overlay.query_one(DraftArea)
        await wait_for(pilot, lambda: draft.has_focus)
        assert ("⏎", "send") in hints.hints
        assert listing.highlighted == 1
        await pilot.press(*"hi", "enter")
        await wait_for(pilot, lambda: sent_bodies() == ["hi"])
        assert mail.list_messages(SLUG)[0].to_short == targets(1)[0].short


# -- restore rows -----------------------------------------------------------------------


def test_restore_rows_say_each_fact_once() -> None:
    demo = RosterPane(
        "demo", "11878766-0000-4000-8000-000000000001", title="wrk demo", short="11878766"
    )
    assert row_label(demo, True) == "[x] worker · demo · demo-standard · 11878766"
    named = RosterPane(
        "claude", "9a8b7c6d-0000-4000-8000-00000000000a", title="login form", short="9a8b7c6d"
    )
    assert row_label(named, False) == "[ ] worker · login form · claude · 9a8b7c6d"
    orch = RosterPane(
        "codex",
        "8b7c6d5e-0000-4000-8000-00000000000b",
        role="orchestrator",
        short="8b7c6d5e",
        title="orch",
    )
    assert row_label(orch, True) == "[x] orchestrator · codex · 8b7c6d5e"
    named = msgspec.structs.replace(named, model="claude-opus-4-1")
    assert row_label(named, True) == "[x] worker · login form · claude · claude-opus-4-1 · 9a8b7c6d"


# -- header -----------------------------------------------------------------------------


def test_one_error_is_not_shown_with_a_doubled_count() -> None:
    text = "1 process started its own session"
    line = header_line(HeaderFacts(sessions=1, errors=1, latest_error=text), 120)
    assert f"⚠ {text}" in line
    line = header_line(HeaderFacts(sessions=1, errors=3, latest_error=text), 120)
    assert f"⚠ 3 errors · {text}" in line


def test_header_counts_ended_panes_as_the_sidebar_does() -> None:
    line = header_line(HeaderFacts(sessions=0, ended=1), 120)
    assert "zirv · 0 live · 1 ended" in line
    assert "zirv · 2 sessions" in header_line(HeaderFacts(sessions=2), 120)


def test_header_tabs_carry_their_focus_digit() -> None:
    tabs = [
        Tab("orch", PaneState.IDLE, True),
        Tab("1187", PaneState.IDLE, False),
        Tab("029f", PaneState.NEEDS_YOU, False),
    ]
    line = header_line(HeaderFacts(sessions=3, tabs=tabs), 90)
    assert "1 ● orch" in line and "2 ● 1187" in line and "3 ▲ 029f" in line
    many = [Tab(f"t{i}", PaneState.IDLE, False) for i in range(11)]
    wide = header_line(HeaderFacts(sessions=11, tabs=many), 400)
    assert "9 ● t8" in wide and " ● t9" in wide and "10 ● t9" not in wide


# -- dialogs dim what is behind them -----------------------------------------------------

APP_CSS = Path(__file__).resolve().parents[1] / "screens" / "app.tcss"


class Behind(App[None]):
    """The app's own stylesheet (its opaque `Screen` rule) under a dialog."""

    CSS_PATH = str(APP_CSS)

    def compose(self) -> ComposeResult:
        yield Static("text behind the dialog")


async def test_a_dialog_dims_the_screen_behind_it() -> None:
    app = Behind()
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(QuitConfirmScreen([], source=list))
        await wait_for(pilot, lambda: isinstance(app.screen, QuitConfirmScreen))
        await pilot.pause()
        assert app.screen.styles.background.a < 1
        shot = app.export_screenshot().replace("&#160;", " ")
        assert "text" in shot and "behind" in shot and "nothing working" in shot


# -- the demo agent's first prompt ------------------------------------------------------


def screen_of(pane: Pane) -> str:
    return "\n".join(pane.model_view.lines())


def test_a_first_prompt_of_slash_ask_asks(tmp_path: Path) -> None:
    pane = _pane("demo", [*adapters.ADAPTERS["demo"].interactive_argv(), "/ask"], tmp_path)
    try:
        _await(pane, "the question", lambda: "Do you want to proceed?" in screen_of(pane))
        assert "Working on: /ask" not in screen_of(pane)
        pane.send(b"y")
        _await(pane, "the approved step", lambda: "approved" in screen_of(pane))
        _await(pane, "the prompt after it", pane.at_input_prompt)
    finally:
        pane.stop(grace=0.5)


def test_a_first_prompt_of_slash_fail_fails(tmp_path: Path) -> None:
    pane = _pane("demo", [*adapters.ADAPTERS["demo"].interactive_argv(), "/fail"], tmp_path)
    try:
        _await(pane, "the exit", lambda: pane.poll_exit() is not None)
        assert pane.exit_code == 3
        assert "demo failure requested" in screen_of(pane)
    finally:
        pane.stop(grace=0.5)


# -- processes an earlier dashboard left running ----------------------------------------


def escaped(pid: int) -> escapes.Escaped:
    return escapes.Escaped(pid, None, "sleep 600", "5bbee778", 0.0)


def test_the_outlived_summary_counts_once_in_proper_number() -> None:
    one = escapes.outlived_summary([escaped(101)])
    assert one.startswith("1 process started its own session and outlived")
    assert "pid 101 (sleep 600) left session 5bbee778" in one
    assert "process(es)" not in one
    four = escapes.outlived_summary([escaped(p) for p in (1, 2, 3, 4)])
    assert four.startswith("4 processes started their own sessions")
    assert "pid 4" not in four and "and 1 more" in four
