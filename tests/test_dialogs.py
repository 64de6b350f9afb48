"""Dialogs in the live dashboard (Pilot, real panes): the mouse grammar (a click
selects, a double click activates, the wheel moves, footer keys click), the spawn
picker, layouts that fit, live content; and, in tmux, the mouse modes asked for."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual import events
from textual.app import App, ComposeResult
from textual.pilot import _get_mouse_message_arguments
from textual.widget import Widget
from textual.widgets import Checkbox, Label, OptionList, Static

from screens.app import ZirvApp
from screens.dialog import KeyHints
from screens.errors import ErrorsScreen
from screens.grid import GridScreen, grid_step
from screens.handover import HandoverScreen
from screens.help import HelpScreen, help_text
from screens.inspector import InspectorScreen
from screens.mail import MailScreen
from screens.menu import MenuScreen
from screens.quit_confirm import QuitConfirmScreen
from screens.restore import RestoreScreen
from screens.spawn import SpawnRequestForm, SpawnScreen
from tests.apphelpers import (
    dash_screen,
    demo_worker,
    gated_demo_app,
    make_app,
    screen_text,
    tools_only_path,
    wait_for,
)
from tests.tmuxharness import ZIRV, Tmux, base_env
from widgets.header_bar import HeaderBar, HeaderFacts
from widgets.sidebar import Sidebar
from zirv_dash.config.layers import AdapterGate
from zirv_dash.dash import roster
from zirv_dash.keymap import load_preset
from zirv_dash.mail import mailbox as mail

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(autouse=True)
def plain_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """No vendor CLIs on PATH, a plain shell, a demo without spinner (tmux tests
    keep the PATH: they need tmux)."""
    if request.node.get_closest_marker("tmux") is None:
        tools_only_path(tmp_path, monkeypatch)
    monkeypatch.setenv("ZIRV_DEMO_SPINNER", "0")


async def open_screen(pilot: Any, app: ZirvApp, kind: type, *keys: str) -> Any:
    await pilot.press(*keys)
    await wait_for(pilot, lambda: isinstance(app.screen, kind))
    await pilot.pause()
    return app.screen


async def settle(pilot: Any) -> None:
    """Let every message a click queued be handled (the click's effects, if any)."""
    for _ in range(5):
        await pilot.pause()


async def wheel(pilot: Any, widget: Widget, down: bool = True) -> None:
    """A wheel notch over `widget`, delivered as the driver's would be (via the screen)."""
    kind = events.MouseScrollDown if down else events.MouseScrollUp
    pilot.app.screen._forward_event(kind(**_get_mouse_message_arguments(widget, (2, 0))))
    await settle(pilot)


def hint_offset(hints: KeyHints, shown: str) -> tuple[int, int]:
    line, start, _end, _key = next(s for s in hints.spans if s[3] == shown)
    return (start + 1, line)


# -- a click selects, a double click activates ----------------------------------------


async def test_handover_picker_click_selects_and_double_click_swaps(tmp_path: Path) -> None:
    app = make_app(tmp_path, agent="demo", flags={"dash": {"idle_quiet_ms": 300}})
    async with app.run_test(size=(120, 40)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: bool(dash.panes) and dash.panes[0].is_idle())
        pane = dash.panes[0]
        assert pane.pty is not None
        pid = pane.pty.pid
        picker = await open_screen(pilot, app, HandoverScreen, "ctrl+a", "o")
        texts = [f"{r.agent} / {r.tier}" for r in picker.rows]
        deep = texts.index("demo / deep")
        rows = picker.query_one("#handover-rows", OptionList)
        await pilot.click(rows, offset=(2, deep))
        await settle(pilot)
        # One click only moves the highlight: the pane and its agent are untouched.
        assert app.screen is picker and rows.highlighted == deep
        assert pane.pty is not None and pane.pty.pid == pid and pane.model != "demo-deep"
        await pilot.click(rows, offset=(2, deep), times=2)
        await wait_for(pilot, lambda: not isinstance(app.screen, HandoverScreen))
        await wait_for(pilot, lambda: pane.model == "demo-deep", timeout=20)


async def test_handover_picker_opens_on_the_current_row_and_says_why_a_harness_is_out(
    tmp_path: Path,
) -> None:
    # It opened on the first row (another harness: one Enter swapped it), and
    # an installed harness with no resolvable tier (opencode) was left out.
    fake = tmp_path / "bin" / "opencode"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    app = make_app(tmp_path, agent="demo", flags={"dash": {"idle_quiet_ms": 300}})
    async with app.run_test(size=(120, 40)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: bool(dash.panes) and dash.panes[0].is_idle())
        picker = await open_screen(pilot, app, HandoverScreen, "ctrl+a", "o")
        rows = picker.query_one("#handover-rows", OptionList)
        assert rows.highlighted is not None
        current = picker.rows[rows.highlighted]
        assert (current.agent, current.model, current.current) == ("demo", "demo-standard", True)
        out = next(i for i, r in enumerate(picker.rows) if r.agent == "opencode")
        option = rows.get_option_at_index(out)
        assert option.disabled
        assert "opencode  cannot be chosen: no model set for its tiers" in str(option.prompt)
        assert "handover.opencode.standard" in str(option.prompt)
        # A click on it does nothing; the arrows step over it.
        await pilot.click(rows, offset=(2, out))
        await settle(pilot)
        assert rows.highlighted != out and app.screen is picker
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HandoverScreen))


async def test_spawn_dialog_click_selects_and_double_click_spawns(tmp_path: Path) -> None:
    app = make_app(tmp_path, agent="shell")
    async with app.run_test(size=(120, 40)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: len(dash.panes) == 1)
        spawn = await open_screen(pilot, app, SpawnScreen, "ctrl+a", "s")
        harness = spawn.query_one("#harness", OptionList)
        ids = [harness.get_option_at_index(i).id for i in range(harness.option_count)]
        demo = ids.index("demo")
        assert harness.highlighted != demo
        await pilot.click(harness, offset=(2, demo))
        await settle(pilot)
        assert app.screen is spawn and harness.highlighted == demo and len(dash.panes) == 1
        await pilot.click(harness, offset=(2, demo), times=2)
        await wait_for(pilot, lambda: len(dash.panes) == 2)
        assert dash.panes[1].agent == "demo"


async def test_mail_click_shows_a_message_and_double_click_consumes_it(tmp_path: Path) -> None:
    app = make_app(tmp_path, agent="shell")
    async with app.run_test(size=(120, 40)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: bool(dash.panes))
        stored = [
            mail.store(
                dash.slug,
                text,
                from_session="ffff0000-sender",
                from_agent="codex",
                to_session="ffff0000-other",  # nobody here consumes it meanwhile
            )
            for text in ("first note", "second note")
        ]
        overlay = await open_screen(pilot, app, MailScreen, "ctrl+a", "m")
        rows = overlay.query_one("#mail-list", OptionList)
        await wait_for(pilot, lambda: rows.option_count == 2)
        await pilot.click(rows, offset=(2, 1))
        await settle(pilot)
        preview = overlay.query_one("#mail-preview", Static)
        assert rows.highlighted == 1 and "second note" in str(preview.render())
        assert all(m.path.exists() for m in stored)  # one click reads, it does not consume
        await pilot.click(rows, offset=(2, 1), times=2)
        await wait_for(pilot, lambda: not stored[1].path.exists())
        assert stored[0].path.exists()


# -- footer keys, the wheel, header tabs, right-click ---------------------------------


async def test_footer_keys_of_the_menu_and_inspector_act_like_the_key(tmp_path: Path) -> None:
    app = make_app(tmp_path, agent="shell")
    async with app.run_test(size=(120, 40)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: bool(dash.panes) and "$" in screen_text(dash.panes[0]))
        menu = await open_screen(pilot, app, MenuScreen, "ctrl+a", "c")
        hints = menu.query_one(KeyHints)
        # `j down` moves the cursor as j does, `⏎ do` runs the entry (inspect).
        assert menu.entries[menu.cursor].label == "inspect"
        await pilot.click(hints, offset=hint_offset(hints, "j"))
        await wait_for(pilot, lambda: menu.cursor == 1)
        await pilot.click(hints, offset=hint_offset(hints, "k"))
        await wait_for(pilot, lambda: menu.cursor == 0)
        await pilot.click(hints, offset=hint_offset(hints, "⏎"))
        await wait_for(pilot, lambda: isinstance(app.screen, InspectorScreen))
        inspector = app.screen
        hints = inspector.query_one(KeyHints)
        await pilot.click(hints, offset=hint_offset(hints, "esc"))
        await wait_for(pilot, lambda: not isinstance(app.screen, InspectorScreen))
        menu = await open_screen(pilot, app, MenuScreen, "ctrl+a", "c")
        hints = menu.query_one(KeyHints)
        await pilot.click(hints, offset=hint_offset(hints, "esc"))
        await wait_for(pilot, lambda: not isinstance(app.screen, MenuScreen))


async def test_the_wheel_moves_through_dialog_lists(tmp_path: Path) -> None:
    app = make_app(tmp_path, agent="shell")
    async with app.run_test(size=(120, 40)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: bool(dash.panes) and "$" in screen_text(dash.panes[0]))
        menu = await open_screen(pilot, app, MenuScreen, "ctrl+a", "c")
        body = menu.query_one("#menu-body")
        await wheel(pilot, body)
        await wait_for(pilot, lambda: menu.cursor == 1)
        await wheel(pilot, body, down=False)
        await wait_for(pilot, lambda: menu.cursor == 0)
        await pilot.press("escape")
        picker = await open_screen(pilot, app, HandoverScreen, "ctrl+a", "o")
        rows = picker.query_one("#handover-rows", OptionList)
        before = rows.highlighted
        assert before is not None
        await wheel(pilot, rows)
        await wait_for(pilot, lambda: rows.highlighted == before + 1)
        assert app.screen is picker  # the wheel never activates
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HandoverScreen))
        entries = [
            roster.RosterPane("demo", f"{n}c6d5e4f-0000-4000-8000-00000000000c", title=f"t{n}")
            for n in range(3)
        ]
        restore = RestoreScreen(entries)
        app.push_screen(restore)
        await wait_for(
            pilot, lambda: app.screen is restore and bool(restore.query("#restore-body"))
        )
        await pilot.pause()
        await wheel(pilot, restore.query_one("#restore-body"))
        await wait_for(pilot, lambda: restore.cursor == 1)
        assert restore.checked == [True, True, True]  # moved, not toggled


async def test_the_wheel_scrolls_a_long_inspector_at_80x24(tmp_path: Path) -> None:
    app = make_app(tmp_path, agent="shell")
    async with app.run_test(size=(80, 24)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: bool(dash.panes) and "$" in screen_text(dash.panes[0]))
        inspector = await open_screen(pilot, app, InspectorScreen, "ctrl+a", "i")
        scroll = inspector.query_one("#inspect-scroll")
        footer = inspector.query_one(KeyHints)
        await wait_for(pilot, lambda: footer.region.height > 0)
        # The body scrolls inside the dialog (it used to be clipped by it), the
        # footer stays on screen, and the wheel moves the body.
        assert footer.region.bottom <= 24 and scroll.max_scroll_y > 0
        await wheel(pilot, scroll)
        await wait_for(pilot, lambda: scroll.scroll_offset.y > 0)


async def test_header_tabs_under_100_columns_focus_their_pane(tmp_path: Path) -> None:
    app = make_app(tmp_path, agent="shell", extra=[("shell", None), ("shell", None)])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: len(dash.panes) == 3)
        header = screen.query_one(HeaderBar)
        await wait_for(pilot, lambda: len(header.tab_spans) == 3)
        assert dash.focused == 0
        start, _end, index = header.tab_spans[2]
        await pilot.click(header, offset=(start + 2, 0))
        await wait_for(pilot, lambda: dash.focused == index == 2)
        assert screen.views[dash.panes[2].short].display


async def test_right_click_opens_the_rows_menu_without_focusing_it(tmp_path: Path) -> None:
    app = make_app(tmp_path, agent="shell", extra=[("shell", None), ("shell", None)])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: len(dash.panes) == 3)
        sidebar = screen.query_one(Sidebar)
        await wait_for(pilot, lambda: len(sidebar.rows) == 3)
        await pilot.click(sidebar, offset=(4, 3), button=3)
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        menu = app.screen
        assert isinstance(menu, MenuScreen)
        assert menu.subject.startswith(dash.panes[2].short) and dash.focused == 0
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
        assert dash.focused == 0
        # Choosing `focus` there focuses that row.
        await pilot.click(sidebar, offset=(4, 3), button=3)
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen))
        await pilot.press("f")
        await wait_for(pilot, lambda: dash.focused == 2)


# -- the spawn picker ------------------------------------------------------------------


async def test_spawn_picker_shows_every_harness_and_scrolls_with_keys(tmp_path: Path) -> None:
    app = make_app(tmp_path, agent="shell")
    async with app.run_test(size=(120, 40)) as pilot:
        spawn = await open_screen(pilot, app, SpawnScreen, "ctrl+a", "s")
        harness = spawn.query_one("#harness", OptionList)
        assert harness.option_count == len(spawn.choices) > 6
        await wait_for(pilot, lambda: harness.size.height == harness.option_count)
        await pilot.press("escape")
        await pilot.resize_terminal(80, 24)
        spawn = await open_screen(pilot, app, SpawnScreen, "ctrl+a", "s")
        harness = spawn.query_one("#harness", OptionList)
        await wait_for(pilot, lambda: harness.size.height > 6)
        # Shorter than the list: the keys reach the last row, which scrolls into view.
        assert harness.size.height < harness.option_count
        await pilot.press("end")
        await wait_for(pilot, lambda: harness.scroll_offset.y > 0)
        dialog = spawn.query_one(".dialog")
        assert dialog.region.bottom <= 24 and spawn.query_one(KeyHints).region.bottom <= 24


async def test_spawn_filter_is_shown_and_a_gated_name_says_why(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".zirv").mkdir(parents=True)
    (repo / ".zirv" / ".settings.toml").write_text("[agents.codex]\nenabled = false\n")
    app = make_app(repo, agent="shell")
    from zirv_dash.config.layers import load_adapter_gate

    app.options.gate = load_adapter_gate(repo)
    async with app.run_test(size=(120, 40)) as pilot:
        dash = dash_screen(app).dash
        spawn = await open_screen(pilot, app, SpawnScreen, "ctrl+a", "s")
        filt = spawn.query_one("#filter", Label)
        await pilot.press(*"de")
        await wait_for(pilot, lambda: "filter: de" in str(filt.render()))
        harness = spawn.query_one("#harness", OptionList)
        assert harness.get_option_at_index(harness.highlighted or 0).id == "demo"
        await pilot.press("backspace", "backspace", *"codex")
        error = spawn.query_one("#error", Label)
        await wait_for(pilot, lambda: "filter: codex" in str(filt.render()))
        expected = "codex is disabled by .zirv/.settings.toml"
        await wait_for(pilot, lambda: str(error.render()) == expected)
        await pilot.press("enter")
        await settle(pilot)
        # Nothing else was picked in its place.
        assert app.screen is spawn and len(dash.panes) == 1
        assert str(error.render()) == expected


class SpawnApp(App[None]):
    def __init__(self, spawn: SpawnScreen) -> None:
        super().__init__()
        self.spawn = spawn
        self.result: SpawnRequestForm | None | str = "unset"

    def compose(self) -> ComposeResult:
        yield Static("behind")

    def on_mount(self) -> None:
        def done(result: SpawnRequestForm | None) -> None:
            self.result = result

        self.push_screen(self.spawn, done)


async def test_enter_on_the_worktree_box_spawns_and_the_box_shows_its_tick(
    tmp_path: Path,
) -> None:
    # Textual's Checkbox toggled on Enter (the footer promises ⏎ spawn) and drew
    # the same `X` ticked or not: without colours the two looked alike.
    from zirv_dash.config.layers import load_settings

    spawn = SpawnScreen(str(tmp_path), AdapterGate(), load_settings(tmp_path), live_panes=0)
    app = SpawnApp(spawn)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: spawn.is_mounted)
        await pilot.press(*"shell")
        box = spawn.query_one("#worktree", Checkbox)
        box.focus()
        await pilot.pause()
        assert not box.value and "X" not in str(box.render())
        await pilot.press("space")
        await wait_for(pilot, lambda: box.value)
        assert "X" in str(box.render())
        await pilot.press("space")
        await wait_for(pilot, lambda: not box.value)
        assert "X" not in str(box.render())
        await pilot.press("space", "enter")
        await wait_for(pilot, lambda: app.result != "unset")
    assert isinstance(app.result, SpawnRequestForm)
    assert app.result.agent == "shell" and app.result.worktree


async def test_spawn_dialog_says_the_pane_cap_when_it_opens(tmp_path: Path) -> None:
    app = make_app(
        tmp_path, agent="shell", extra=[("shell", None)], flags={"dash": {"max_panes": 2}}
    )
    async with app.run_test(size=(120, 40)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: len(dash.live_panes) == 2)
        spawn = await open_screen(pilot, app, SpawnScreen, "ctrl+a", "s")
        cap = spawn.query_one("#spawn-cap", Label)
        assert cap.display
        assert "pane limit reached: 2 live panes, dash.max_panes = 2" in str(cap.render())
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is spawn and len(dash.panes) == 2


def test_spawn_dialog_below_the_cap_says_nothing_of_it() -> None:
    from zirv_dash.config.layers import load_settings

    settings = load_settings(Path.cwd())
    screen = SpawnScreen("/", AdapterGate(), settings, live_panes=0)
    assert screen.cap_text() == ""
    full = SpawnScreen("/", AdapterGate(), settings, live_panes=settings.dash.max_panes)
    assert "pane limit reached" in full.cap_text()


# -- layout ---------------------------------------------------------------------------


def header_line(facts: HeaderFacts, width: int) -> str:
    async def run() -> str:
        from textual.app import App

        class One(App[None]):
            def compose(self) -> Any:
                yield HeaderBar(id="h")

        app = One()
        async with app.run_test(size=(width, 3)) as pilot:
            header = app.query_one(HeaderBar)
            header.update_facts(facts)
            await pilot.pause()
            return str(header.render())

    import asyncio

    return asyncio.run(run())


HINTS = [("^A c", "actions"), ("^A n", "nudge"), ("^A m", "mail"), ("^A ?", "help")]


@pytest.mark.parametrize("width", [80, 120])
def test_header_notice_and_tip_are_shown_whole(width: int) -> None:
    notice = "nudge queued -- delivers when idle"
    line = header_line(HeaderFacts(sessions=2, working=1, notice=notice, hints=HINTS), width)
    assert notice in line and len(line) <= width
    tip = "^A ? help · ^A p palette · click a row to focus"
    line = header_line(HeaderFacts(sessions=1, working=1, tip=tip, hints=HINTS), width)
    assert tip in line
    # Hints give way whole: each one shown is complete.
    for chord, label in HINTS:
        if chord in line:
            assert f"{chord} {label}" in line


HEADINGS = {"navigate", "the selected row", "dashboard", "no prefix"}


def test_help_rows_wrap_under_their_own_column() -> None:
    console = Console(width=96, record=True, color_system=None)  # the dialog at 120 columns
    console.print(help_text(load_preset("default")))
    lines = console.export_text().splitlines()
    for line in lines:
        if not line.strip() or line.strip() in HEADINGS or line.startswith("keymap:"):
            continue
        # A row, or a description's continuation: indented, never at the left edge.
        assert line.startswith("  "), f"flush-left help line: {line!r}"


async def test_mail_rows_stay_one_line_each(tmp_path: Path) -> None:
    app = make_app(tmp_path, agent="shell")
    async with app.run_test(size=(80, 24)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: bool(dash.panes))
        long = "please look at the failing integration test in the payments module " * 2
        for n in range(3):
            # Addressed to a session that is not here: nobody consumes it meanwhile.
            mail.store(
                dash.slug,
                f"{n} {long}",
                from_session="ffff0000-sender",
                from_agent="operator",
                to_session="ffff0000-other",
            )
        overlay = await open_screen(pilot, app, MailScreen, "ctrl+a", "m")
        rows = overlay.query_one("#mail-list", OptionList)
        await wait_for(pilot, lambda: rows.option_count == 3)
        await pilot.pause()
        assert rows.virtual_size.height == 3


async def test_errors_dialog_is_as_tall_as_its_content(tmp_path: Path) -> None:
    app = make_app(tmp_path, agent="shell")
    async with app.run_test(size=(120, 40)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: bool(dash.panes))
        dash.error("one thing went wrong")
        errors = await open_screen(pilot, app, ErrorsScreen, "ctrl+a", "e")
        dialog = errors.query_one(".dialog")
        await wait_for(pilot, lambda: dialog.size.height > 0)
        # Border, one entry, the footer's margin and line, border.
        assert dialog.outer_size.height <= 6, dialog.outer_size


async def test_help_at_80_columns_wraps_descriptions_in_their_column(tmp_path: Path) -> None:
    app = make_app(tmp_path, agent="shell")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: bool(dash_screen(app).dash.panes))
        help_screen = await open_screen(pilot, app, HelpScreen, "ctrl+a", "question_mark")
        body = help_screen.query_one("#help-body", Static)
        await wait_for(pilot, lambda: body.size.height > 0)
        lines = ["".join(s.text for s in body.render_line(y)) for y in range(body.size.height)]
        assert any("jump to pane" in line for line in lines)
        for line in lines:
            text = line.strip()
            if text and text not in HEADINGS and not text.startswith("keymap:"):
                assert line.startswith("  "), f"flush-left help line: {line!r}"
        footer = help_screen.query_one(KeyHints)
        assert footer.region.bottom <= 24


@pytest.mark.serial  # follows states as they settle: timing, not beside another worker
async def test_quit_dialog_follows_the_working_panes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The demo goes idle at its prompt, not by quiet; a short quiet period
    # would read a child the loaded machine starves for a moment as unknown.
    app, gate = gated_demo_app(tmp_path, monkeypatch, "a long task", idle_quiet_ms=3_000)
    async with app.run_test(size=(120, 40)) as pilot:
        dash = dash_screen(app).dash
        worker = await demo_worker(pilot, app, "a long task")
        await wait_for(pilot, lambda: dash.working_panes() == [worker])
        quit_screen = await open_screen(pilot, app, QuitConfirmScreen, "ctrl+a", "q")
        dialog = quit_screen.query_one(".dialog")
        assert str(dialog.border_title).endswith("1 working")
        gate.touch()
        await wait_for(pilot, lambda: worker.is_idle(), timeout=20)
        await wait_for(pilot, lambda: "nothing working" in str(dialog.border_title))
        assert app.screen is quit_screen


def test_grid_arrows_move_spatially_without_wrapping() -> None:
    # Three tiles in two columns: 0 1 / 2 .
    assert grid_step(1, 0, 1, cols=2, count=3) == 1  # nothing under tile 2
    assert grid_step(0, 0, 1, cols=2, count=3) == 2
    assert grid_step(2, 0, -1, cols=2, count=3) == 0
    assert grid_step(1, 1, 0, cols=2, count=3) == 1  # right edge
    assert grid_step(0, -1, 0, cols=2, count=3) == 0  # left edge
    assert grid_step(2, 1, 0, cols=2, count=3) == 2  # no tile right of tile 3


async def test_grid_down_from_the_last_column_stays(tmp_path: Path) -> None:
    app = make_app(tmp_path, agent="shell", extra=[("shell", None), ("shell", None)])
    async with app.run_test(size=(160, 48)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: len(dash.panes) == 3)
        grid = await open_screen(pilot, app, GridScreen, "ctrl+a", "g")
        assert grid.cursor == 0
        await pilot.press("right")
        await wait_for(pilot, lambda: grid.cursor == 1)
        assert grid._cols == 2  # tiles 1 2 / 3 .
        await pilot.press("down")  # nothing under tile 2: it stays (it wrapped to tile 1)
        await settle(pilot)
        assert grid.cursor == 1
        await pilot.press("right")  # the right edge: it stays
        await settle(pilot)
        assert grid.cursor == 1
        await pilot.press("left", "down")
        await wait_for(pilot, lambda: grid.cursor == 2)


# -- mouse modes at the glass ---------------------------------------------------------


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    repo = tmp_path / "proj"
    (repo / ".zirv").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    t = Tmux(repo, base_env(tmp_path / "state", tmp_path / "operator"))
    yield t
    t.kill()


@pytest.mark.tmux
@pytest.mark.timeout(90)
def test_the_terminal_is_asked_for_button_motion_not_all_motion(tmux: Tmux) -> None:
    tmux.start([*ZIRV, "chat", "--agent", "shell"], 120, 40)
    tmux.wait_dashboard()
    flags = tmux.run(
        "display", "-p", "-t", "main", "#{mouse_all_flag} #{mouse_button_flag} #{mouse_sgr_flag}"
    ).split()
    # tmux: all = any-motion (1003), button = button-motion (1002), sgr = 1006.
    assert flags == ["0", "1", "1"]


@pytest.mark.tmux
@pytest.mark.timeout(90)
def test_esc_then_the_prefix_at_once_closes_the_picker_and_arms_the_prefix(tmux: Tmux) -> None:
    # One send-keys: the terminal hands Esc and Ctrl+A over in one read, which
    # Textual took for Alt+Ctrl+A and dropped the Esc (the picker stayed open).
    tmux.start([*ZIRV, "chat", "--agent", "shell"], 120, 40)
    tmux.wait_dashboard()
    tmux.keys("C-a", "o")
    tmux.wait_for("handover → pane")
    tmux.keys("Escape", "C-a", "s")
    tmux.wait_for("spawn a pane")
    assert "handover → pane" not in tmux.capture()


def _row_at(screen: str, text: str) -> tuple[int, int]:
    """1-based (column, row) of `text` on the screen, for an SGR mouse report."""
    for y, line in enumerate(screen.splitlines(), start=1):
        if text in line:
            return line.index(text) + 2, y
    raise AssertionError(f"{text!r} is not on the screen:\n{screen}")


@pytest.mark.tmux
@pytest.mark.timeout(90)
def test_a_click_whose_press_and_release_arrive_in_one_read_acts_in_the_picker(
    tmux: Tmux,
) -> None:
    tmux.start([*ZIRV, "chat", "--agent", "demo"], 120, 40)
    tmux.wait_dashboard()
    tmux.wait_for("Idle")
    tmux.keys("C-a", "o")
    x, y = _row_at(tmux.wait_for("demo / cheap"), "demo / cheap")
    # One send-keys: press and release reach the app in one read.
    tmux.text(f"\x1b[<0;{x};{y}M\x1b[<0;{x};{y}m")
    tmux.keys("Enter")  # the clicked row, not the current one (a fresh conversation)
    tmux.wait_for("demo ▸ orchestrator · demo-cheap")
    # The successor has proved itself (its trial is over) before the next handover.
    tmux.wait_for("→ demo/demo-cheap", timeout=30)
    tmux.keys("C-a", "o")
    x, y = _row_at(tmux.wait_for("demo / deep"), "demo / deep")
    click = f"\x1b[<0;{x};{y}M\x1b[<0;{x};{y}m"
    tmux.text(click + click)  # a double click, all four reports in one read
    tmux.wait_for("demo ▸ orchestrator · demo-deep")
