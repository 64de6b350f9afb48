"""The palette matches with Textual's fuzzy Matcher, shows what matched, and never
stalls a keystroke on a query with many ways to place it."""

from __future__ import annotations

import time

from rich.text import Text
from textual.app import App

from screens.palette import PaletteScreen
from widgets.palette_list import Entry, PaletteList, fuzzy_best

ENTRIES = [
    Entry("grid", "grid", "navigate", "every pane as a live tile", "^A g"),
    Entry("copy_mode", "copy mode", "navigate", "search and copy from scrollback", "^A ["),
    Entry("help", "help", "dashboard", "every chord, grouped", "^A ?"),
]


def test_a_label_match_beats_a_description_match_case_and_spaces_ignored() -> None:
    label = fuzzy_best("Cp Ym", "copy mode", "^A [", "search")
    description = fuzzy_best("tile", "grid", "^A g", "every pane as a live tile")
    assert label is not None and label[0] == 0 and label[2] == (0, 2, 3, 5)
    assert description is not None and description[0] == 2
    assert fuzzy_best("zzz", "copy mode", "^A [", "search") is None


def test_a_query_with_many_placements_is_answered_at_once() -> None:
    # Trying every placement of ten e's over this text takes the fuzzy search
    # many seconds; the leftmost placement is scored instead.
    text = "the pane's screen, every line kept; see the text here, then select, then yes " * 2
    started = time.perf_counter()
    found = fuzzy_best("eeeeeeeeee", "label", "^A x", text)
    assert time.perf_counter() - started < 0.5
    assert found is not None and found[0] == 2
    assert all(text[offset] == "e" for offset in found[2])


class PaletteApp(App[None]):
    def on_mount(self) -> None:
        self.push_screen(PaletteScreen(list(ENTRIES)))


def underlined(text: Text) -> set[int]:
    return {
        offset
        for span in text.spans
        if not isinstance(span.style, str) and span.style.underline
        for offset in range(span.start, span.end)
    }


async def test_the_matched_characters_are_highlighted() -> None:
    app = PaletteApp()
    async with app.run_test(size=(100, 20)) as pilot:
        await pilot.pause()
        await pilot.press(*"cpym")
        plist = app.screen.query_one(PaletteList)
        assert plist.current is not None and plist.current.action == "copy_mode"
        rendered = plist.render()
        first_row = rendered.plain.split("\n")[0]
        assert first_row.startswith("  copy mode")
        # The label starts at column 2: c, p, y and m of "copy mode".
        row_end = len(first_row)
        assert {o for o in underlined(rendered) if o < row_end} == {2, 4, 5, 7}
