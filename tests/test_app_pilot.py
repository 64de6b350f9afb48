"""The dashboard driven through Pilot: real panes, real keys, real overlays."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from screens.errors import ErrorsScreen
from screens.help import HelpScreen
from screens.quit_confirm import QuitConfirmScreen
from screens.spawn import SpawnScreen
from tests.apphelpers import dash_screen, make_app, screen_text, wait_for
from widgets.footer_bar import FooterBar
from widgets.header_bar import HeaderBar
from zirv_dash.attention.states import PaneState
from zirv_dash.outer_terminal import OuterTerminal
from zirv_dash.panes.procinfo import pid_exists

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(autouse=True)
def plain_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHELL", "/bin/sh")
    monkeypatch.setenv("PS1", "$ ")


async def test_keys_reach_the_child_and_prefix_chords_do_not(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: len(dash.panes) == 1 and "$" in screen_text(dash.panes[0]))
        pane = dash.panes[0]
        await pilot.press(*"cat -A", "enter")
        await pilot.pause(0.2)
        # Tab and Escape go to the child, Ctrl+A Ctrl+A is a literal 0x01,
        # Ctrl+A x (unbound) is swallowed, Ctrl+A ? opens help (not typed).
        await pilot.press("tab", "a", "escape", "b", "ctrl+a", "ctrl+a", "c")
        await pilot.press("ctrl+a", "x", "d", "enter")
        await wait_for(pilot, lambda: "^Ia^[b^Ac" in screen_text(pane))
        text = screen_text(pane)
        assert "^Ia^[b^Acd$" in text  # no stray 'x' leaked
        await pilot.press("ctrl+c")
        await pilot.press("ctrl+a", "question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen))


async def test_spawn_switch_type_and_zoom(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: len(dash.panes) == 1)
        await pilot.press("ctrl+a", "s")
        await wait_for(pilot, lambda: isinstance(app.screen, SpawnScreen))
        # The first installed harness is highlighted; pick demo explicitly.
        spawn = app.screen
        assert isinstance(spawn, SpawnScreen)
        from textual.widgets import OptionList

        options = spawn.query_one("#harness", OptionList)
        index = next(i for i, (name, _) in enumerate(spawn.choices) if name == "demo")
        options.highlighted = index
        await pilot.press("tab", "tab")  # past the model field to the prompt
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: len(dash.panes) == 2)
        worker = dash.panes[1]
        assert worker.agent == "demo" and dash.focused == 1
        await wait_for(pilot, lambda: "Done." in screen_text(worker))
        assert "Working on: hello" in screen_text(worker)
        await pilot.press("ctrl+a", "1")
        await wait_for(pilot, lambda: dash.focused == 0)
        await pilot.press(*"echo typed-$((6*7))", "enter")
        await wait_for(pilot, lambda: "typed-42" in screen_text(dash.panes[0]))
        assert "typed-42" not in screen_text(worker)
        await pilot.press("ctrl+a", "2")
        await wait_for(pilot, lambda: dash.focused == 1)
        # Zoom: chrome hidden and every pane resized to the full terminal.
        await pilot.press("ctrl+a", "z")
        await wait_for(
            pilot, lambda: worker.model_view.columns == 120 and worker.model_view.rows == 40
        )
        assert not screen.query_one("#header").display
        await pilot.press("ctrl+a", "z")
        await wait_for(pilot, lambda: worker.model_view.rows < 40)
        assert screen.query_one("#header").display
        # Ctrl+A Tab cycles focus.
        await pilot.press("ctrl+a", "tab")
        await wait_for(pilot, lambda: dash.focused == 0)


async def test_pane_cap_and_unknown_harness_are_reported(tmp_path: Path) -> None:
    app = make_app(tmp_path, extra=[("demo", None)], flags={"dash": {"max_panes": 2}})
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: len(dash.panes) == 2)
        assert screen.engine.spawn("demo") is None
        assert (
            "pane limit reached (2 live panes, dash.max_panes = 2)" in dash.errors.entries[0].text
        )
        assert screen.engine.spawn("no-such-harness") is None
        assert "unknown harness 'no-such-harness'" in dash.errors.entries[0].text
        await pilot.press("ctrl+a", "e")
        await wait_for(pilot, lambda: isinstance(app.screen, ErrorsScreen))
        assert len(dash.errors.unacked) == 2
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ErrorsScreen))
        assert dash.errors.unacked == []


async def test_missing_binary_shows_in_pane_and_dashboard_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    app = make_app(tmp_path, agent="shell", extra=[("claude", None)])
    async with app.run_test(size=(120, 40)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: len(dash.panes) == 2)
        broken = dash.panes[1]
        assert "claude: command not found on PATH" in screen_text(broken)
        assert any("could not start" in e.text for e in dash.errors.entries)
        assert dash.panes[0].alive


async def test_quit_confirms_when_working_and_leaves_no_children(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The worker's task is held at its last step (the gate file never appears),
    # so it is still working whatever the machine's speed.
    monkeypatch.setenv("ZIRV_DEMO_GATE", str(tmp_path / "never"))
    app = make_app(tmp_path, agent="demo", extra=[("demo", "a long task"), ("shell", None)])
    async with app.run_test(size=(120, 40)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: len(dash.panes) == 3 and all(p.pty for p in dash.panes))
        await wait_for(pilot, lambda: dash.panes[1].state() is PaneState.WORKING)
        pids = [p.pty.pid for p in dash.panes if p.pty]
        await pilot.press("ctrl+a", "q")
        await wait_for(pilot, lambda: isinstance(app.screen, QuitConfirmScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, QuitConfirmScreen))
        assert all(p.alive for p in dash.panes)
        await pilot.press("ctrl+a", "q")
        await wait_for(pilot, lambda: isinstance(app.screen, QuitConfirmScreen))
        await pilot.press("enter")
        await wait_for(pilot, lambda: not app.is_running, timeout=15)
    for pid in pids:
        assert not pid_exists(pid), f"child {pid} outlived the dashboard"


async def test_the_last_pane_ending_leaves_the_dashboard_on_it(tmp_path: Path) -> None:
    """The only pane ends: the dashboard stays on it with its exit status (it
    used to close at once), `Ctrl+A r` starts it again, `Ctrl+A q` quits and
    returns 1 for a pane that had failed."""
    app = make_app(tmp_path, agent="shell")
    async with app.run_test(size=(100, 30)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: len(dash.panes) == 1 and "$" in screen_text(dash.panes[0]))
        first = dash.panes[0]
        await pilot.press(*"exit 3", "enter")
        await wait_for(pilot, lambda: not first.alive)
        await wait_for(pilot, lambda: "every pane has ended" in (dash.current_notice() or ""))
        await pilot.pause(0.3)
        assert app.is_running and dash.focused_pane is first
        screen.chrome.refresh()
        segments = screen.query_one(FooterBar).segments
        assert any("code 3" in segment for segment in segments), segments
        hints = [label for _chord, label in screen.query_one(HeaderBar).facts.hints]
        assert "restart" in hints, hints
        await pilot.press("ctrl+a", "r")
        await wait_for(pilot, lambda: len(dash.live_panes) == 1)
        again = dash.panes[0]
        assert again is not first and first not in dash.panes
        assert again.role == "orchestrator" and again.agent == "shell"
        await wait_for(pilot, lambda: "$" in screen_text(again))
        await pilot.press(*"exit 3", "enter")
        await wait_for(pilot, lambda: not again.alive)
        await pilot.press("ctrl+a", "q")
        await wait_for(pilot, lambda: not app.is_running, timeout=10)
    assert app.return_value == 1


async def test_sidebar_hides_below_100_columns_and_header_shows_tabs(tmp_path: Path) -> None:
    app = make_app(tmp_path, agent="demo", extra=[("demo", None)])
    async with app.run_test(size=(90, 30)) as pilot:
        screen = dash_screen(app)
        await wait_for(pilot, lambda: len(screen.dash.panes) == 2)
        from widgets.header_bar import HeaderBar
        from widgets.sidebar import Sidebar

        assert not screen.query_one(Sidebar).display
        header = screen.query_one(HeaderBar)
        await wait_for(pilot, lambda: header.facts.tabs is not None)
        tabs = header.facts.tabs
        assert tabs is not None and [t.name for t in tabs][0] == "orch"
        await pilot.press("ctrl+a", "b")
        await wait_for(pilot, lambda: screen.query_one(Sidebar).display)


async def test_scrollback_paging_and_typing_snaps_back(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: len(dash.panes) == 1 and "$" in screen_text(dash.panes[0]))
        pane = dash.panes[0]
        await pilot.press(*"seq 1 300", "enter")
        await wait_for(pilot, lambda: pane.model_view.history_size > 200)
        await pilot.press("ctrl+a", "pageup")
        await wait_for(pilot, lambda: pane.scroll_offset > 0)
        await pilot.press("ctrl+a", "home")
        await wait_for(pilot, lambda: pane.scroll_offset == pane.model_view.history_size)
        await pilot.press("ctrl+a", "end")
        await wait_for(pilot, lambda: pane.scroll_offset == 0)
        await pilot.press("ctrl+a", "pageup")
        await wait_for(pilot, lambda: pane.scroll_offset > 0)
        await pilot.press("x")
        await wait_for(pilot, lambda: pane.scroll_offset == 0)
        assert os.environ.get("SHELL") == "/bin/sh"


async def test_children_asking_for_colours_hear_the_outer_terminals(tmp_path: Path) -> None:
    # Codex and other TUIs ask (OSC 10/11) to choose a light or dark palette.
    colors = ((0xE0, 0xE0, 0xE0), (0x1E, 0x1E, 0x1E))
    app = make_app(tmp_path, outer=OuterTerminal(colors=colors))
    async with app.run_test(size=(100, 30)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: bool(dash.panes))
        model = dash.panes[0].model_view
        model.feed(b"\x1b]11;?\x07")
        assert dash.default_colors == colors
        assert model.take_replies() == b"\x1b]11;rgb:1e1e/1e1e/1e1e\x07"


async def test_textual_bindings_never_steal_keys_from_a_pane(tmp_path: Path) -> None:
    # Ctrl+Q (Textual's quit), Ctrl+P (its palette), Ctrl+C, Tab (focus) and
    # function keys all belong to the child.
    script = tmp_path / "raw.py"
    script.write_text(
        "import os, sys, tty\n"
        "tty.setraw(0)\n"
        "os.write(1, b'READY\\r\\n')\n"
        "seen = b''\n"
        "while not seen.endswith(b'Z'):\n"
        "    seen += os.read(0, 64)\n"
        "os.write(1, b'GOT ' + seen.hex().encode() + b'\\r\\n')\n"
        "import time; time.sleep(30)\n"
    )
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: bool(dash.panes) and "$" in screen_text(dash.panes[0]))
        pane = dash.panes[0]
        pane.send(f"exec {sys.executable} {script}\r".encode())
        await wait_for(pilot, lambda: "READY" in screen_text(pane))
        await pilot.press("ctrl+q", "ctrl+p", "ctrl+c", "tab", "f1", "ctrl+s", "Z")
        expected = b"\x11\x10\x03\t\x1bOP\x13Z".hex()
        await wait_for(pilot, lambda: f"GOT {expected}" in screen_text(pane))
        assert app.is_running


async def test_first_run_tip_until_the_first_chord(tmp_path: Path) -> None:
    from widgets.header_bar import HeaderBar

    app = make_app(tmp_path, manage_state=True)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        await wait_for(pilot, lambda: bool(screen.dash.panes))
        header = screen.query_one(HeaderBar)
        await wait_for(pilot, lambda: header.facts.tip is not None)
        assert "^A ? help" in (header.facts.tip or "")
        await pilot.press("ctrl+a", "question_mark")
        await pilot.press("escape")
        await wait_for(pilot, lambda: header.facts.tip is None)
    again = make_app(tmp_path, manage_state=True)
    async with again.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(again)
        await wait_for(pilot, lambda: bool(screen.dash.panes))
        await pilot.pause(0.2)
        assert screen.query_one(HeaderBar).facts.tip is None  # remembered across launches
