"""The native conversation pane: a transcript reduced from the session's journal,
an activity line while a turn runs, a status line, the composer and the
numbered approval dialog (inventory §12.3–12.5).

Build it around a session: `NativePane(open_session(workdir, name))`. The pane
owns the session from mount on: it closes it on unmount, and posts
`NativePane.CloseRequested` for Ctrl+Q or a second Ctrl+C within 2 s (inside
the dashboard that closes this pane only).
"""

from __future__ import annotations

import time

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from widgets.native_approval import NativeApproval
from widgets.native_composer import NativeComposer
from zirv_dash.native.engine import NativeSession
from zirv_dash.native.render import (
    Line,
    activity_line,
    expandable,
    git_branch,
    render_item,
    status_line,
)
from zirv_dash.native.transcript import Item

TONES = {
    "": "",
    "muted": "dim",
    "accent": "bold #d97757",
    "warn": "yellow",
    "err": "red",
    "ok": "green",
    "emph": "bold",
    "code": "dim cyan",
    "add": "green",
    "del": "red",
}
QUIT_WINDOW = 2.0
HINTS = {
    "send": "enter sends",
    "steer": "enter steers this turn",
    "queue": "blocked — enter queues",
}


def to_text(lines: list[Line]) -> Text:
    text = Text(no_wrap=False, overflow="fold")
    for index, line in enumerate(lines):
        if index:
            text.append("\n")
        for part, tone in line:
            text.append(part, style=TONES.get(tone, ""))
    return text


class TranscriptItem(Widget):
    DEFAULT_CSS = "TranscriptItem { height: auto; margin: 0 0 1 0; }"

    def __init__(self, item: Item) -> None:
        super().__init__()
        self.item = item
        self.expanded = False

    def set_item(self, item: Item) -> None:
        if item != self.item:
            self.item = item
            self.refresh(layout=True)

    def toggle(self) -> None:
        self.expanded = not self.expanded
        self.refresh(layout=True)

    def lines(self, width: int) -> list[Line]:
        return render_item(self.item, max(10, width), self.expanded)

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        # Measured as Rich will draw it: a line wider than the pane folds.
        text = to_text(self.lines(width))
        return max(1, len(text.wrap(self.app.console, max(1, width))))

    def render(self) -> Text:
        return to_text(self.lines(self.size.width))


class Transcript(VerticalScroll, can_focus=True):
    DEFAULT_CSS = (
        "Transcript { height: 1fr; padding: 0 1; } Transcript:focus { background: $boost; }"
    )
    BINDINGS = [
        Binding("up", "step(-1)", show=False),
        Binding("down", "step(1)", show=False),
        Binding("pageup", "step(-10)", show=False),
        Binding("pagedown", "step(10)", show=False),
        Binding("home", "scroll_home", show=False),
        Binding("end", "bottom", show=False),
        Binding("e,enter", "expand", show=False),
    ]

    def action_step(self, lines: int) -> None:
        self.scroll_relative(y=lines * 2, animate=False)

    def action_bottom(self) -> None:
        self.scroll_end(animate=False)
        pane = next((a for a in self.ancestors if isinstance(a, NativePane)), None)
        if pane is not None:
            pane.unread = False
            pane.refresh_status()

    def action_expand(self) -> None:
        pane = next((a for a in self.ancestors if isinstance(a, NativePane)), None)
        if pane is not None:
            pane.action_expand_last()


class NativePane(Widget):
    DEFAULT_CSS = """
    NativePane { layout: vertical; height: 1fr; }
    NativePane > #native-status { height: 1; background: $boost; padding: 0 1; }
    NativePane #native-streaming { height: auto; }
    NativePane #native-activity { height: auto; }
    NativePane > #native-hint { height: 1; color: $text-muted; }
    NativePane > #native-box { height: auto; border: round $primary 50%; padding: 0 1; }
    NativePane > #native-box:focus-within { border: round $primary; }
    NativePane #native-prompt { width: 2; color: $text-muted; }
    """
    BINDINGS = [
        Binding("escape", "escape", show=False, priority=True),
        Binding("ctrl+c", "arm_quit", show=False, priority=True),
        Binding("ctrl+q", "close_now", show=False, priority=True),
        Binding("ctrl+r", "expand_last", show=False, priority=True),
    ]

    class CloseRequested(Message):
        def __init__(self, pane: NativePane) -> None:
            super().__init__()
            self.pane = pane

        @property
        def control(self) -> NativePane:
            return self.pane

    def __init__(self, session: NativeSession, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.session = session
        self.unread = False
        self.notice = ""
        self._items: dict[str, TranscriptItem] = {}
        self._order: list[str] = []
        self._dirty = False
        self._quit_armed = 0.0
        self._branch = git_branch(str(session.workdir.root))

    def compose(self) -> ComposeResult:
        yield Static(id="native-status")
        with Transcript(id="native-transcript"):
            yield Static(id="native-streaming")
            yield Static(id="native-activity")
        yield NativeApproval(id="native-approval")
        with Horizontal(id="native-box"):
            yield Static("> ", id="native-prompt")
            yield NativeComposer(id="native-composer")
        yield Static(id="native-hint")

    @property
    def transcript(self) -> Transcript:
        return self.query_one("#native-transcript", Transcript)

    @property
    def composer(self) -> NativeComposer:
        return self.query_one("#native-composer", NativeComposer)

    @property
    def approval(self) -> NativeApproval:
        return self.query_one("#native-approval", NativeApproval)

    def on_mount(self) -> None:
        self.session.on_change = self._session_changed
        self.set_interval(0.12, self._tick)
        self._sync()
        self.composer.focus()

    async def on_unmount(self) -> None:
        self.session.on_change = None
        await self.session.close()

    # ---- session -> view ------------------------------------------------------------

    def _session_changed(self) -> None:
        if not self._dirty:
            self._dirty = True
            self.call_later(self._sync)

    def _sync(self) -> None:
        self._dirty = False
        snap = self.session.snapshot()
        following = self.transcript.is_vertical_scroll_end or not self.transcript.max_scroll_y
        added = self._sync_items(snap.transcript.items)
        if added and not following and any(i.kind == "tool" for i in added):
            self.unread = True
        streaming = self.query_one("#native-streaming", Static)
        if snap.streaming:
            item = Item("assistant", "streaming", snap.streaming)
            streaming.update(to_text(render_item(item, max(10, self.transcript.size.width - 2))))
            streaming.display = True
        else:
            streaming.display = False
        self.approval.show(snap.pending)
        if snap.pending is None and self.approval.has_focus:
            self.composer.focus()
        self._tick()
        self.refresh_status()
        if following:
            self.transcript.scroll_end(animate=False, immediate=False)

    def _sync_items(self, items: tuple[Item, ...]) -> list[Item]:
        keys = [item.key for item in items]
        wanted = set(keys)
        for key in [k for k in self._order if k not in wanted]:
            self._items.pop(key).remove()
        self._order = [k for k in self._order if k in wanted]
        added: list[Item] = []
        anchor = self.query_one("#native-streaming", Static)
        for item in items:
            widget = self._items.get(item.key)
            if widget is not None:
                widget.set_item(item)
                continue
            widget = TranscriptItem(item)
            self._items[item.key] = widget
            if item.kind == "elided" and self._order:
                self.transcript.mount(widget, before=self._items[self._order[0]])
                self._order.insert(0, item.key)
            else:
                self.transcript.mount(widget, before=anchor)
                self._order.append(item.key)
            added.append(item)
        return added

    def _tick(self) -> None:
        snap = self.session.snapshot()
        activity = self.query_one("#native-activity", Static)
        if snap.running and snap.turn_started is not None and snap.state != "blocked":
            elapsed = time.monotonic() - snap.turn_started
            activity.update(to_text([activity_line(elapsed, snap.turn_tokens)]))
            activity.display = True
        else:
            activity.display = False
        self._hint(snap.queued)

    def _hint(self, queued: tuple[str, ...]) -> None:
        mode = HINTS[self.session.submit_mode()]
        waiting = f"   ⧗ {len(queued)} queued" if queued else ""
        label = f"   {self.composer.mode} mode" if self.composer.mode != "default" else ""
        self.query_one("#native-hint", Static).update(f"  ? for shortcuts   {mode}{waiting}{label}")

    def refresh_status(self) -> None:
        snap = self.session.snapshot()
        state = snap.state
        if snap.pending is not None:
            state = "blocked"
        elif state == "completed" and self.unread:
            state = "unread"
        route = snap.route
        line = status_line(
            route.label,
            route.name,
            route.billing,
            state,
            snap.context_left,
            str(self.session.workdir.root),
            self._branch,
            self.notice,
        )
        self.query_one("#native-status", Static).update(to_text([line]))

    # ---- input ----------------------------------------------------------------------

    def on_native_composer_submitted(self, message: NativeComposer.Submitted) -> None:
        message.stop()
        self.session.submit(message.text)

    def on_native_composer_mode_changed(self, message: NativeComposer.ModeChanged) -> None:
        message.stop()
        self._tick()

    def on_native_approval_answered(self, message: NativeApproval.Answered) -> None:
        message.stop()
        self.session.answer(message.call_id, message.answer)

    def action_escape(self) -> None:
        """Esc closes the dialog first (as its last option), else interrupts the turn."""
        if self.approval.request is not None:
            self.approval.deny()
            return
        self.session.interrupt()

    def action_arm_quit(self) -> None:
        now = time.monotonic()
        if now - self._quit_armed <= QUIT_WINDOW:
            self.post_message(self.CloseRequested(self))
            return
        self._quit_armed = now
        self.notice = "press ctrl+c again to quit"
        self.refresh_status()
        self.set_timer(QUIT_WINDOW, self._disarm)

    def _disarm(self) -> None:
        if time.monotonic() - self._quit_armed >= QUIT_WINDOW - 0.05:
            self.notice = ""
            self.refresh_status()

    def action_close_now(self) -> None:
        self.post_message(self.CloseRequested(self))

    def action_expand_last(self) -> None:
        for key in reversed(self._order):
            widget = self._items[key]
            if expandable(widget.item):
                widget.toggle()
                return

    def on_key(self, event: events.Key) -> None:
        if event.key == "question_mark" and not self.composer.has_focus:
            self.session.submit("/help")
