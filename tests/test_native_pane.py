"""The native pane in a small Textual app, driven with Pilot over the demo route."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.widgets import Static

from widgets.native_approval import NativeApproval
from widgets.native_composer import NativeComposer
from widgets.native_pane import NativePane
from widgets.native_transcript import TranscriptView
from zirv_dash.native.demo_provider import NOTE_FILE, DemoProvider
from zirv_dash.native.engine import NativeSession
from zirv_dash.native.journal import Journal
from zirv_dash.native.routes import demo_route


class PaneApp(App[None], inherit_bindings=False):
    def __init__(self, session: NativeSession) -> None:
        super().__init__()
        self.session = session
        self.closed = 0

    def compose(self) -> ComposeResult:
        yield NativePane(self.session, id="pane")

    def on_native_pane_close_requested(self, message: NativePane.CloseRequested) -> None:
        self.closed += 1


@pytest.fixture
def app(tmp_path: Path) -> PaneApp:
    wd = tmp_path / "wd"
    wd.mkdir()
    (wd / ".git").mkdir()
    (wd / ".git" / "HEAD").write_text("ref: refs/heads/feature-x\n")
    session = NativeSession(
        demo_route(), Journal(tmp_path / "p.sqlite"), wd, provider=DemoProvider(delay=0.01)
    )
    return PaneApp(session)


async def until(pilot: object, check: Callable[[], bool], timeout: float = 15.0) -> None:
    async with asyncio.timeout(timeout):
        while not check():
            await pilot.pause(0.02)  # type: ignore[attr-defined]


def plain(app: PaneApp) -> str:
    return app.query_one(TranscriptView).plain()


def status(app: PaneApp) -> str:
    return str(app.query_one("#native-status", Static).render())


async def submit(pilot: object, app: PaneApp, text: str) -> None:
    composer = app.query_one(NativeComposer)
    composer.focus()
    composer.load_text(text)
    await pilot.press("enter")  # type: ignore[attr-defined]


async def test_a_turn_streams_asks_and_writes_after_1(app: PaneApp) -> None:
    async with app.run_test(size=(100, 32)) as pilot:
        assert "zirv/demo" in status(app) and "(feature-x)" in status(app)
        await submit(pilot, app, "tidy up")
        dialog = app.query_one(NativeApproval)
        await until(pilot, lambda: dialog.ready)
        assert "> tidy up" in plain(app) and "⏺ list_dir(path: .)" in plain(app)
        assert "▲ blocked" in status(app) and "⎿ ▲ waiting for approval" in plain(app)
        assert app.focused is dialog
        await pilot.press("1")
        wd = app.session.workdir.root
        await until(pilot, lambda: (wd / NOTE_FILE).exists() and not app.session.busy)
        await until(pilot, lambda: "Done." in plain(app))
        assert "⎿ ✓ diff (ctrl+r to expand)" in plain(app)
        assert "✓ completed" in status(app)
        await pilot.press("ctrl+r")
        await until(pilot, lambda: "+Notes from the zirv demo route." in plain(app))
        assert isinstance(app.focused, NativeComposer)


async def test_the_composer_can_never_answer_the_dialog(app: PaneApp) -> None:
    async with app.run_test(size=(100, 32)) as pilot:
        await submit(pilot, app, "go")
        dialog = app.query_one(NativeApproval)
        await until(pilot, lambda: dialog.ready)
        await submit(pilot, app, "1")
        await pilot.pause()
        assert app.session.queued == ["1"] and app.session.pending is not None
        assert "⧗ 1 queued" in str(app.query_one("#native-hint", Static).render())
        assert not (app.session.workdir.root / NOTE_FILE).exists()
        dialog.focus()
        await pilot.press("escape")  # Esc is the last option: deny
        await until(pilot, lambda: "denied by the operator" in plain(app))
        assert not (app.session.workdir.root / NOTE_FILE).exists()
        assert "what to do differently" in app.query_one(NativeComposer).placeholder


async def test_a_key_before_the_dialog_was_drawn_answers_nothing(app: PaneApp) -> None:
    async with app.run_test(size=(100, 32)) as pilot:
        await submit(pilot, app, "go")
        await until(pilot, lambda: app.session.pending is not None)
        dialog = app.query_one(NativeApproval)
        dialog.drawn_for = None  # as if this frame had not been painted yet
        assert not dialog.ready
        dialog.post_message(events.Key("1", "1"))
        assert app.session.pending is not None
        await pilot.pause()
        assert app.session.pending is not None  # the early key answered nothing
        dialog.refresh()
        await until(pilot, lambda: dialog.ready)  # the next paint arms it
        await pilot.press("3")
        await until(pilot, lambda: app.session.pending is None)


async def test_a_key_read_before_the_frame_and_its_margin_answers_nothing(app: PaneApp) -> None:
    from widgets.native_approval import ANSWER_MARGIN

    async with app.run_test(size=(100, 32)) as pilot:
        await submit(pilot, app, "go")
        dialog = app.query_one(NativeApproval)
        await until(pilot, lambda: dialog.drawn_for is not None)
        armed = dialog.armed_at
        assert armed is not None
        # A key typed 0.16 s after the frame was written, handled only once
        # the margin has passed: it was read before the operator could see it.
        early = events.Key("1", "1")
        early.time = armed - ANSWER_MARGIN + 0.16
        await until(pilot, lambda: dialog.ready)
        dialog.post_message(early)
        await pilot.pause()
        await pilot.pause()
        assert app.session.pending is not None  # swallowed, not kept for later
        # Esc read early, from the terminal (the App's bindings first: the
        # pane's priority Esc stands aside for a focused dialog, which judges
        # it by its read time) answers nothing either.
        assert app.focused is dialog
        early_escape = events.Key("escape", None)
        early_escape.time = armed - 0.01
        app.post_message(early_escape)
        await pilot.pause()
        await pilot.pause()
        assert app.session.pending is not None
        await pilot.press("3")  # read now: after the margin
        await until(pilot, lambda: app.session.pending is None)
        assert not (app.session.workdir.root / NOTE_FILE).exists()


async def test_escape_interrupts_a_running_turn(tmp_path: Path) -> None:
    wd = tmp_path / "wd"
    wd.mkdir()
    slow = NativeSession(
        demo_route(), Journal(tmp_path / "s.sqlite"), wd, provider=DemoProvider(delay=0.3)
    )
    app = PaneApp(slow)
    async with app.run_test(size=(100, 32)) as pilot:
        await submit(pilot, app, "start")
        pane = app.query_one(NativePane)
        await until(pilot, lambda: "esc to interrupt" in plain(app))
        assert pane.activity().endswith("tokens · esc to interrupt)")
        await pilot.press("escape")
        await until(pilot, lambda: app.session.state == "cancelled")
        assert "⊘ cancelled" in status(app) and pane.activity() == ""
        assert "esc to interrupt" not in plain(app)


async def test_double_ctrl_c_closes_and_history_walks(app: PaneApp) -> None:
    async with app.run_test(size=(100, 32)) as pilot:
        composer = app.query_one(NativeComposer)
        await submit(pilot, app, "/help")
        await submit(pilot, app, "/status")
        await until(pilot, lambda: "zirv/demo · demo" in plain(app))
        await pilot.press("up")
        assert composer.text == "/status"
        await pilot.press("up")
        assert composer.text == "/help"
        await pilot.press("down", "down")
        assert composer.text == ""
        await pilot.press("ctrl+c")
        assert app.closed == 0 and "ctrl+c again" in status(app)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.closed == 1


async def test_draft_and_queue_survive_a_restart(tmp_path: Path) -> None:
    wd = tmp_path / "wd"
    wd.mkdir()

    def session() -> NativeSession:
        journal = Journal(tmp_path / "keep.sqlite")
        return NativeSession(demo_route(), journal, wd, provider=DemoProvider(delay=0))

    app = PaneApp(session())
    async with app.run_test(size=(100, 32)) as pilot:
        await submit(pilot, app, "first")
        await until(pilot, lambda: app.query_one(NativeApproval).ready)
        await submit(pilot, app, "queued one")
        app.query_one(NativeComposer).load_text("half a thought")
        await pilot.pause()
        await pilot.press("ctrl+q")
        assert app.closed == 1
    again = PaneApp(session())
    async with again.run_test(size=(100, 32)) as pilot:
        assert again.query_one(NativeComposer).text == "half a thought"
        # the queued line is sent once the session is ready: a fresh turn asks again
        await until(pilot, lambda: again.session.pending is not None)
        assert "> queued one" in plain(again)
        assert "⁉ outcome unknown" not in plain(again)  # the old call never started
        assert "⊘ cancelled" in plain(again)


async def test_at_completion_and_tab_accepts_it(app: PaneApp) -> None:
    (app.session.workdir.root / "README.md").write_text("hi\n")
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.press("s", "e", "e", "space", "@", "R")
        box = app.query_one("#native-complete", Static)
        await until(pilot, lambda: box.display and "@README.md" in str(box.render()))
        await pilot.press("tab")
        composer = app.query_one(NativeComposer)
        assert composer.text == "see @README.md " and app.focused is composer
        await pilot.press("tab")  # nothing to complete: Tab moves focus
        assert app.focused is app.query_one(TranscriptView)


async def test_question_mark_on_an_empty_draft_shows_the_keys_and_transcript_steps(
    app: PaneApp,
) -> None:
    async with app.run_test(size=(100, 20)) as pilot:
        for _ in range(4):
            await pilot.press("question_mark")
        await until(pilot, lambda: plain(app).count("esc interrupts") == 4)
        view = app.query_one(TranscriptView)
        await pilot.press("tab")
        assert app.focused is view and view.follow
        await pilot.press("home")
        assert view.scroll_y == 0 and not view.follow
        await pilot.press("down")
        assert view.scroll_y == view._starts[1]
        await pilot.press("end")
        assert view.follow


async def test_newline_keys_paste_and_ctrl_u(app: PaneApp) -> None:
    async with app.run_test(size=(100, 32)) as pilot:
        composer = app.query_one(NativeComposer)
        await pilot.press("a", "shift+enter", "b", "alt+enter", "c")
        assert composer.text == "a\nb\nc" and app.session.events[-1].kind == "open"
        await pilot.press("ctrl+u")
        assert composer.text == ""
        composer.post_message(events.Paste("one\r\ntwo\rthree"))
        await pilot.pause()
        assert composer.text == "one\ntwo\nthree"
        await pilot.press("up")  # not on the first line: the cursor moves, no history
        assert composer.text == "one\ntwo\nthree"
        await pilot.press("shift+tab")
        assert "accept-edits mode" in str(app.query_one("#native-hint", Static).render())


async def test_a_draft_taller_than_its_box_keeps_the_cursor_in_view(app: PaneApp) -> None:
    async with app.run_test(size=(100, 32)) as pilot:
        composer = app.query_one(NativeComposer)
        await pilot.press("a")
        await until(pilot, lambda: composer.text == "a")
        short = app.cursor_position
        await pilot.press("b")
        # The cursor (and the terminal's real cursor) moves on with a typed key
        # while the draft fits its box and nothing scrolls.
        assert composer.scroll_offset == (0, 0) and app.cursor_position.x == short.x + 1
        for n in range(12):  # taller than the box's 8 rows: it scrolls
            await pilot.press("shift+enter", chr(ord("c") + n))
        await until(pilot, lambda: composer.text.count("\n") == 12)
        bottom = composer.scroll_offset.y
        assert bottom > 0
        region = composer.content_region
        assert region.y <= app.cursor_position.y < region.bottom  # on the last, shown row
        for _ in range(12):
            await pilot.press("up")
        assert composer.scroll_offset.y < bottom  # followed the cursor back up
        assert region.y <= app.cursor_position.y < region.bottom
