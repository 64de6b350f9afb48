"""What a keystroke in the native composer costs: over a long transcript, typing
repaints the composer row only. The transcript, its scrollbar and the status
line are not rendered again (the compositor renders every widget whose parent
meets the repainted region, so they sit in a container of their own), and the
composer's per-edit messages do not travel up the DOM."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static, TextArea

from tests.test_native_pane import PaneApp, until
from widgets.native_composer import NativeComposer
from widgets.native_pane import NativePane
from widgets.native_transcript import TranscriptView
from zirv_dash.native.demo_provider import DemoProvider
from zirv_dash.native.engine import NativeSession
from zirv_dash.native.journal import Journal
from zirv_dash.native.routes import demo_route

# Frames are counted: a loaded worker beside it draws late frames into the count.
pytestmark = pytest.mark.serial

EXCHANGES = 300


def long_session(tmp_path: Path) -> NativeSession:
    journal = Journal(tmp_path / "long.sqlite")
    for n in range(EXCHANGES):
        journal.append("input", id=f"in-{n}", text=f"question {n}")
        journal.append("assistant", id=f"m-{n}", text=f"answer {n} with `code` and more words")
    wd = tmp_path / "wd"
    wd.mkdir()
    return NativeSession(demo_route(), journal, wd, provider=DemoProvider(delay=0))


def count_renders(widgets: dict[str, Widget], counts: Counter[str]) -> None:
    for name, widget in widgets.items():
        original: Callable[[Region], list[Strip]] = widget.render_lines

        def counted(crop: Region, name: str = name, original: Any = original) -> list[Strip]:
            counts[name] += 1
            result: list[Strip] = original(crop)
            return result

        widget.render_lines = counted  # type: ignore[method-assign]


async def test_typing_repaints_the_composer_and_not_the_transcript(tmp_path: Path) -> None:
    app = PaneApp(long_session(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        pane = app.query_one(NativePane)
        composer = app.query_one(NativeComposer)
        transcript = app.query_one(TranscriptView)
        await until(pilot, lambda: app.focused is composer)
        await until(pilot, lambda: f"answer {EXCHANGES - 1}" in transcript.plain())
        await pilot.pause(0.6)  # the first frames (and the scroll to the end) are drawn
        counts: Counter[str] = Counter()
        count_renders(
            {
                "composer": composer,
                "transcript": transcript,
                "lines": transcript.settled,
                "scrollbar": transcript.vertical_scrollbar,
                "status": pane.query_one("#native-status", Static),
            },
            counts,
        )
        posted: list[str] = []
        original_post = TextArea.post_message

        def watch(self: TextArea, message: Any) -> bool:
            if self is composer:
                posted.append(type(message).__name__)
            return original_post(self, message)

        TextArea.post_message = watch  # type: ignore[method-assign,assignment]
        try:
            for key in "hello":
                await pilot.press(key)
                await pilot.pause(0.05)
        finally:
            TextArea.post_message = original_post  # type: ignore[method-assign]
        assert composer.text == "hello" and pane._draft == "hello"
        assert counts["composer"] >= 1
        assert counts["transcript"] == counts["lines"] == counts["scrollbar"] == 0
        assert counts["status"] == 0
        # The draft reached the pane directly; the cursor's messages went nowhere.
        assert "Changed" not in posted and "SelectionChanged" not in posted
        # Completions still follow the draft.
        await pilot.press("ctrl+u", *"/he")
        box = pane.query_one("#native-complete", Static)
        await until(pilot, lambda: box.display and "/help" in str(box.render()))


async def test_the_composer_takes_a_new_theme(tmp_path: Path) -> None:
    """Its text-area theme is re-derived only when what it reads changed: a new
    app theme is such a change."""
    app = PaneApp(long_session(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        composer = app.query_one(NativeComposer)
        await until(pilot, lambda: app.focused is composer and composer._css_key is not None)
        before = composer._css_key
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await until(pilot, lambda: composer._css_key != before)
        assert composer._css_key is not None and app.theme in composer._css_key


async def test_type_now_takes_plain_characters_only(tmp_path: Path) -> None:
    """A router may type plain characters straight in (in order, no forwarding);
    anything the composer gives another meaning, or a composer without the
    focus, is declined and goes through Textual as before."""
    app = PaneApp(long_session(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(NativePane)
        composer = app.query_one(NativeComposer)
        await until(pilot, lambda: app.focused is composer)
        assert not pane.type_now("question_mark", "?")  # empty draft: the shortcuts
        for key, char in (("h", "h"), ("i", "i"), ("space", " "), ("question_mark", "?")):
            assert pane.type_now(key, char)
        assert composer.text == "hi ?" and pane._draft == "hi ?"
        assert composer.cursor_location == (0, 4)
        assert not pane.type_now("ctrl+u", None) and not pane.type_now("enter", "\r")
        assert not pane.type_now("tab", "\t")
        await pilot.press("tab")  # the transcript has the focus now
        await until(pilot, lambda: app.focused is not composer)
        assert not pane.type_now("x", "x") and composer.text == "hi ?"


async def test_an_idle_composer_draws_nothing(tmp_path: Path) -> None:
    """Focused, a draft typed, nothing running: no frame touches the composer (its
    cursor is steady — a blinking one repainted it twice a second, for ever)."""
    app = PaneApp(long_session(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        composer = app.query_one(NativeComposer)
        await until(pilot, lambda: app.focused is composer)
        await pilot.press(*"draft")
        await until(pilot, lambda: composer.text == "draft")
        await pilot.pause(0.5)  # the keystrokes' own frames are drawn
        counts: Counter[str] = Counter()
        count_renders({"composer": composer}, counts)
        await pilot.pause(1.3)  # longer than two blink periods
        assert counts["composer"] == 0
        assert composer.text == "draft" and app.focused is composer
