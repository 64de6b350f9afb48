"""The composer's usual row (one line of plain text, the cursor after it) is
built from runs learnt off a row TextArea drew: it must be the same row, cell
for cell and style for style, and anything else must still go through TextArea."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region
from textual.pilot import Pilot
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from tests.test_native_pane import PaneApp, until
from tests.test_native_typing import long_session
from widgets.native_composer import NativeComposer
from widgets.native_draft_line import RowShape, cells, plain_cells
from widgets.native_transcript import TranscriptView

BLUE = Style(color="blue")
CURSOR = Style(reverse=True)
FILL = Style(bgcolor="black")
PROMPT = Segment("> ", Style(dim=True))


def row(text: str, width: int, *, cursor: Style = CURSOR, cursor_text: str = " ") -> Strip:
    fill = width - 2 - len(text) - 1
    return Strip(
        [PROMPT, Segment(text, BLUE), Segment(cursor_text, cursor), Segment(" " * fill, FILL)],
        width,
    )


def test_a_learnt_shape_rebuilds_the_row_it_was_learnt_from() -> None:
    shape = RowShape.learn(row("hello", 20), PROMPT, "hello")
    assert shape is not None
    assert cells(shape.row("hello")) == cells(row("hello", 20))
    assert cells(shape.row("other words")) == cells(row("other words", 20))


def test_rows_of_another_shape_are_not_learnt() -> None:
    # The draft in two styles (a highlighted bracket, a selection).
    mixed = Strip([PROMPT, Segment("ab", BLUE), Segment("c", CURSOR), Segment(" " * 15, FILL)], 20)
    assert RowShape.learn(mixed, PROMPT, "abc") is None
    # A character under the cursor.
    assert RowShape.learn(row("ab", 20, cursor_text="x"), PROMPT, "ab") is None
    # Not one cell a character.
    wide = Strip([PROMPT, Segment("日本", BLUE), Segment(" " * 14, FILL)], 20)
    assert RowShape.learn(wide, PROMPT, "日本") is None


def test_plain_cells_is_printable_ascii_only() -> None:
    assert plain_cells("ls -la ~/src") and plain_cells("")
    for text in ("a\tb", "caf\u00e9", "\u65e5", "\x1b[0m", "a\nb", "\x7f"):
        assert not plain_cells(text), text


def test_a_draft_that_leaves_no_room_does_not_fit() -> None:
    shape = RowShape.learn(row("a", 10), PROMPT, "a")
    assert shape is not None
    assert shape.fits("x" * 6) and not shape.fits("x" * 7)
    # A row with no fill cell does not show the fill's style: not learnt.
    assert RowShape.learn(row("x" * 7, 10), PROMPT, "x" * 7) is None


def drawn_by_textarea(composer: NativeComposer) -> Strip:
    """The row as TextArea draws it now (the learnt shape set aside)."""
    kept, key = composer._row_shape, composer._row_shape_key
    composer._row_shape = None
    try:
        return composer.render_lines(Region(0, 0, composer.outer_size.width, 1))[0]
    finally:
        composer._row_shape, composer._row_shape_key = kept, key


def learn(composer: NativeComposer) -> None:
    """Draw the row through TextArea once and keep the shape learnt from it."""
    composer._row_shape = None
    composer.render_lines(Region(0, 0, composer.outer_size.width, 1))
    assert composer._row_shape is not None


Opened = tuple[PaneApp, Pilot[None], NativeComposer]


@asynccontextmanager
async def composer_with_shape(tmp_path: Path) -> AsyncIterator[Opened]:
    """A focused composer at 80x24 holding "hello", its row's shape learnt."""
    app = PaneApp(long_session(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        composer = app.query_one(NativeComposer)
        await until(pilot, lambda: app.focused is composer)
        show(composer, "hello")
        learn(composer)
        yield app, pilot, composer


def show(composer: NativeComposer, draft: str) -> None:
    composer.load_text(draft)
    composer.move_cursor(composer.document.end)


def drawn(composer: NativeComposer) -> tuple[Strip, bool]:
    """The row as the composer draws it, and whether it was built from the shape
    (TextArea's rendering was not asked for it)."""
    asked: list[Region] = []
    original = ScrollView.render_lines

    def counted(widget: Widget, crop: Region) -> list[Strip]:
        asked.append(crop)
        return original(widget, crop)

    ScrollView.render_lines = counted  # type: ignore[method-assign,assignment]
    try:
        strip = composer.render_lines(Region(0, 0, composer.outer_size.width, 1))[0]
    finally:
        ScrollView.render_lines = original  # type: ignore[method-assign]
    return strip, not asked


async def test_typed_rows_match_what_textarea_draws(tmp_path: Path) -> None:
    app = PaneApp(long_session(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        composer = app.query_one(NativeComposer)
        await until(pilot, lambda: app.focused is composer)
        width = composer.outer_size.width
        drafts = ["h", "hello", "a (b", "x [y] {z}", "trailing  ", "q" * (width - 4)]
        for draft in drafts:
            show(composer, draft)
            await pilot.pause()
            learn(composer)
            strip, built = drawn(composer)
            assert built, f"{draft!r} went through TextArea"
            assert cells(strip) == cells(drawn_by_textarea(composer)), draft


async def test_other_rows_still_go_through_textarea(tmp_path: Path) -> None:
    async with composer_with_shape(tmp_path) as (app, pilot, composer):
        width = composer.outer_size.width
        cases: dict[str, Callable[[], object]] = {
            "cursor inside": lambda: composer.move_cursor((0, 2)),
            "a selection": lambda: composer.select_all(),
            "too long": lambda: composer.load_text("z" * (width - 3)),
            "a wide character": lambda: composer.load_text("日本"),
            "a tab": lambda: composer.load_text("a\tb"),
        }
        for name, arrange in cases.items():
            show(composer, "hello")
            arrange()
            if name != "cursor inside" and name != "a selection":
                composer.move_cursor(composer.document.end)
            await pilot.pause()
            _strip, built = drawn(composer)
            assert not built, f"{name}: the learnt row was used"


async def test_a_composer_with_a_language_draws_every_row_through_textarea(
    tmp_path: Path,
) -> None:
    """The learnt row holds the draft in one style: syntax highlighting splits
    it, so with a language set no shape is used, nor learnt."""
    async with composer_with_shape(tmp_path) as (app, pilot, composer):
        composer.language = "python"
        for draft in ("hello", "x = (1)"):
            show(composer, draft)
            await pilot.pause()
            strip, built = drawn(composer)
            assert not built, f"{draft!r}: the learnt row was used"
            assert cells(strip) == cells(drawn_by_textarea(composer))
        composer._row_shape = None
        drawn(composer)
        assert composer._row_shape is None  # not learnt from a highlighted row
        composer.language = None
        show(composer, "hello")
        await pilot.pause()
        drawn(composer)
        assert drawn(composer)[1]  # without one the usual row is built again


async def test_a_new_theme_or_the_focus_leaving_is_drawn_anew(tmp_path: Path) -> None:
    async with composer_with_shape(tmp_path) as (app, pilot, composer):
        before = cells(drawn(composer)[0])
        key = composer._css_key
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await until(pilot, lambda: composer._css_key != key)
        await pilot.pause()
        strip, _built = drawn(composer)
        assert cells(strip) != before
        assert cells(strip) == cells(drawn_by_textarea(composer))
        await pilot.press("tab")  # the focus moves on: no cursor, other rules
        await until(pilot, lambda: app.focused is not composer)
        strip, _built = drawn(composer)
        assert cells(strip) == cells(drawn_by_textarea(composer))


async def test_the_cursor_offset_is_what_the_wrapped_document_says(tmp_path: Path) -> None:
    """The short way to the cursor's offset (one unwrapped ASCII line) agrees with
    TextArea's own, and the long way is still taken for anything else."""
    app = PaneApp(long_session(tmp_path))
    async with app.run_test(size=(60, 24)) as pilot:
        composer = app.query_one(NativeComposer)
        await until(pilot, lambda: app.focused is composer)
        width = composer.size.width
        for draft in (
            "",
            "a",
            "hello there",
            "tab\there",
            "日本語",
            "w" * (width + 5),
            "two\nlines",
        ):
            composer.load_text("")
            for character in draft:
                if character == "\n":
                    composer.insert("\n")
                else:
                    composer.type_character(character)
            # As the edit left them (a draft that grows the box is wrapped again
            # after the next layout, for TextArea as for this).
            expected = composer.wrapped_document.location_to_offset(composer.cursor_location)
            assert composer._cursor_offset == expected, draft
            assert composer.navigator.last_x_offset == expected.x, draft
            await pilot.pause()
            composer.move_cursor((0, 1))
            await pilot.pause()
            expected = composer.wrapped_document.location_to_offset(composer.cursor_location)
            assert composer._cursor_offset == expected, draft


async def test_typing_clears_a_selection_on_the_screen(tmp_path: Path) -> None:
    app = PaneApp(long_session(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        composer = app.query_one(NativeComposer)
        await until(pilot, lambda: app.focused is composer)
        transcript = app.query_one(TranscriptView)
        app.screen._select_all_in_widget(transcript)
        assert app.screen.selections
        composer.type_character("x")
        assert not app.screen.selections
