"""Broadcast: the chosen set, the picker, and typing fanned out to real panes."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from screens.broadcast_actions import BroadcastActions
from screens.broadcast_picker import BroadcastPicker, PickRow
from tests.apphelpers import dash_screen, make_app, screen_text, wait_for
from zirv_dash.dash.broadcast import MARKER, Broadcast

pytestmark = pytest.mark.timeout(60)


def test_the_chosen_set_drops_ended_panes_and_ends_when_none_is_left() -> None:
    model = Broadcast()
    assert not model.start([])
    assert model.start(["a", "b", "b", "c"]) and model.chosen == ["a", "b", "c"]
    assert model.marker("b") == MARKER and model.marker("z") == ""
    assert model.describe() == f"{MARKER} broadcast to 3 panes"
    alive = {"a", "b", "c"}
    # The focused pane has the key already: it is never sent twice.
    assert model.targets("a", alive.__contains__).send == ("b", "c")
    alive.discard("c")
    step = model.targets("a", alive.__contains__)
    assert step.send == ("b",) and step.ended == ("c",) and model.chosen == ["a", "b"]
    assert model.targets("a", alive.__contains__).ended == ()  # told once
    alive.discard("b")
    last = model.targets("a", alive.__contains__)
    assert last.send == () and last.ended == ("b",) and not model.active
    model.start(["a", "b"])
    model.remove("a")
    model.add("c")
    assert model.chosen == ["b", "c"]
    model.stop()
    assert not model.active and model.marker("b") == "" and model.describe() == ""


class PickerApp(App[None]):
    def __init__(self, picker: BroadcastPicker) -> None:
        super().__init__()
        self.picker = picker
        self.result: list[str] | None | str = "unset"

    def compose(self) -> ComposeResult:
        yield Static("behind")

    def on_mount(self) -> None:
        def done(result: list[str] | None) -> None:
            self.result = result

        self.push_screen(self.picker, done)


ROWS = [PickRow("orch0001", "orch demo", focused=True), PickRow("a1b2c3d4", "a1b2c3d4 shell")]


async def test_space_chooses_and_enter_starts_with_the_chosen_panes() -> None:
    picker = BroadcastPicker(ROWS, chosen=["orch0001"])
    app = PickerApp(picker)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: picker.is_mounted)
        await pilot.press("down", "space")
        assert picker.chosen == {"orch0001", "a1b2c3d4"}
        assert "[x] a1b2c3d4 shell" in str(
            picker.query_one("#broadcast-rows").get_option_at_index(1).prompt
        )  # type: ignore[attr-defined]
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.result != "unset")
    assert app.result == ["orch0001", "a1b2c3d4"]


def rendered_rows(picker: BroadcastPicker) -> list[str]:
    """The picker's rows as drawn on the glass (not the prompts' source)."""
    rows = picker.query_one("#broadcast-rows")
    return [rows.render_line(y).text.strip() for y in range(rows.size.height)]


async def test_a_chosen_row_shows_its_mark_on_the_glass() -> None:
    # The prompt was a str, read as Rich markup: `[x]` vanished as a tag, and
    # a chosen row looked like an unchosen one with its mark missing.
    rows = [*ROWS, PickRow("b2c3d4e5", "b2c3d4e5 [bold]odd[/bold] name")]
    picker = BroadcastPicker(rows, chosen=["orch0001"])
    app = PickerApp(picker)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: picker.is_mounted)
        await pilot.pause()
        drawn = rendered_rows(picker)
        assert "[x] orch demo  (focused)" in drawn
        assert "[ ] a1b2c3d4 shell" in drawn
        assert "[ ] b2c3d4e5 [bold]odd[/bold] name" in drawn
        await pilot.press("down", "space")
        await pilot.pause()
        assert "[x] a1b2c3d4 shell" in rendered_rows(picker)


async def test_a_toggles_all_and_escape_cancels() -> None:
    picker = BroadcastPicker(ROWS)
    app = PickerApp(picker)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: picker.is_mounted)
        await pilot.press("a")
        assert picker.chosen == {"orch0001", "a1b2c3d4"}
        await pilot.press("a")
        assert picker.chosen == set()
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.result != "unset")
    assert app.result is None


async def test_enter_with_nothing_chosen_takes_the_highlighted_pane() -> None:
    picker = BroadcastPicker(ROWS)
    app = PickerApp(picker)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: picker.is_mounted)
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: app.result != "unset")
    assert app.result == ["a1b2c3d4"]


async def test_typing_reaches_each_chosen_shell_in_its_own_key_encoding(tmp_path: Path) -> None:
    """Three real shells: the first focused, the other two chosen. A command typed
    through `fan_out` runs in both; the second switches to application cursor keys,
    so the same Up arrow arrives there as ESC O A and in the third as ESC [ A."""
    app = make_app(tmp_path, agent="shell", extra=[("shell", None), ("shell", None)])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        await wait_for(pilot, lambda: len(screen.views) == 3)
        first, second, third = screen.dash.panes
        control = BroadcastActions(screen)
        control.model.start([first.short, second.short, third.short])
        assert control.marker(second.short) == MARKER and control.header_text()

        def type_line(text: str) -> None:
            for ch in text:
                control.fan_out("space" if ch == " " else ch, ch)
            control.fan_out("enter", "\r")

        type_line("echo fan-$((6*7))")
        await wait_for(pilot, lambda: "fan-42" in screen_text(second))
        await wait_for(pilot, lambda: "fan-42" in screen_text(third))
        assert "fan-42" not in screen_text(first)  # the router types there itself

        # Only the second pane turns on application cursor keys, then both read raw.
        screen.views[third.short].send_paste("stty -icanon -echo; od -c\r")
        screen.views[second.short].send_paste("printf '\\033[?1h'; stty -icanon -echo; od -c\r")
        await wait_for(pilot, lambda: second.model_view.app_cursor_keys)
        await pilot.pause(0.3)  # od is reading (its start prints nothing to wait on)
        for _ in range(4):  # od prints a line per 16 bytes: 4 arrows = 12 bytes, + paste
            control.fan_out("up", None)
        control.fan_out_paste("abcd")
        await wait_for(pilot, lambda: "O   A" in screen_text(second))
        await wait_for(pilot, lambda: "[   A" in screen_text(third))
        assert "O   A" not in screen_text(third)


async def test_a_pane_that_ended_is_left_out_with_a_notice(tmp_path: Path) -> None:
    app = make_app(tmp_path, agent="shell", extra=[("shell", None), ("shell", None)])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        await wait_for(pilot, lambda: len(screen.views) == 3)
        first, second, third = screen.dash.panes
        control = BroadcastActions(screen)
        control.model.start([first.short, second.short, third.short])
        screen.views[third.short].send_paste("exit\r")
        await wait_for(pilot, lambda: not third.alive)
        control.fan_out_paste("echo still-$((2+3))\r")
        assert control.model.chosen == [first.short, second.short]
        assert f"{third.short} ended, left out" in (screen.dash.current_notice() or "")
        await wait_for(pilot, lambda: "still-5" in screen_text(second))
        screen.views[second.short].send_paste("exit\r")
        await wait_for(pilot, lambda: not second.alive)
        control.fan_out("x", "x")
        assert not control.active
        assert "broadcast ended" in (screen.dash.current_notice() or "")
