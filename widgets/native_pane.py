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
from typing import TypeVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from widgets.native_approval import NativeApproval
from widgets.native_composer import NativeComposer
from widgets.native_transcript import TranscriptView, to_text
from widgets.pane_header import shorten_home
from widgets.settled_render import (
    SettledHorizontal,
    SettledRender,
    SettledStatic,
    SettledVertical,
)
from zirv_dash.native.drafts import PersistedDraft, QueuedInput, load_draft, save_draft
from zirv_dash.native.engine import NativeSession
from zirv_dash.native.filerefs import completions
from zirv_dash.native.render import Line, activity_line, git_branch, status_line
from zirv_dash.native.transcript import Item, Transcript

PartT = TypeVar("PartT", bound=Widget)
QUIT_WINDOW = 2.0
HINTS = {
    "send": "enter sends",
    "steer": "enter steers this turn",
    "queue": "blocked — enter queues",
}


class NativePane(SettledRender):
    DEFAULT_CSS = """
    NativePane { layout: vertical; height: 1fr; }
    NativePane > #native-top { height: 1fr; }
    NativePane #native-status { height: 1; background: $boost; padding: 0 1; }
    NativePane > #native-hint { height: 1; color: $text-muted; }
    NativePane > #native-box { height: auto; border: round $primary 50%; padding: 0 1; }
    NativePane > #native-box:focus-within { border: round $primary; }
    NativePane #native-complete { height: auto; max-height: 6; display: none; }
    """
    BINDINGS = [
        Binding("escape", "escape", show=False, priority=True),
        Binding("ctrl+c", "arm_quit", show=False, priority=True),
        Binding("ctrl+q", "close_now", show=False, priority=True),
        Binding("ctrl+r", "expand_last", show=False, priority=True),
    ]

    class CloseRequested(Message):
        """End this pane's conversation. `confirmed`: the operator already said
        so twice (Ctrl+C, Ctrl+C); Ctrl+Q is asked about when a turn is running."""

        def __init__(self, pane: NativePane, confirmed: bool = False) -> None:
            super().__init__()
            self.pane = pane
            self.confirmed = confirmed

        @property
        def control(self) -> NativePane:
            return self.pane

    class StateChanged(Message):
        """The pane's presentation state changed (for the sidebar and attention):
        one of generating, executing, idle, blocked, cancelled, failed, unread, completed."""

        def __init__(self, pane: NativePane, state: str) -> None:
            super().__init__()
            self.pane = pane
            self.state = state

        @property
        def control(self) -> NativePane:
            return self.pane

    class ErrorRaised(Message):
        """A provider or engine error the pane now shows (for the dashboard's error log)."""

        def __init__(self, pane: NativePane, text: str) -> None:
            super().__init__()
            self.pane = pane
            self.text = text

        @property
        def control(self) -> NativePane:
            return self.pane

    def __init__(self, session: NativeSession, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state = ""
        self._errors_seen: set[str] = set()
        self.session = session
        self.unread = False
        self.notice = ""
        self._known: set[str] = set()
        self._reduced: Transcript | None = None
        self._dirty = False
        self._ticker: Timer | None = None
        self._shown: dict[str, str] = {}
        self._parts: dict[str, Widget] = {}
        self._draft = ""  # mirrors the composer, so unmount can save it
        self._completing = False  # completions are shown (or the composer holds one)
        self._quit_armed = 0.0
        self._focus_on_mount = False
        self._branch = git_branch(str(session.workdir.root))

    def compose(self) -> ComposeResult:
        # Everything above the composer in one container: a frame that repaints
        # only the composer row then skips the transcript and its scrollbar (the
        # compositor renders each widget whose parent's region meets the update).
        with SettledVertical(id="native-top"):
            yield SettledStatic(id="native-status")
            yield TranscriptView(id="native-transcript")
            yield NativeApproval(id="native-approval")
            yield Static(id="native-complete")
        with SettledHorizontal(id="native-box"):
            yield NativeComposer(id="native-composer")
        yield SettledStatic(id="native-hint")

    # The parts, found once: every keystroke and activity tick reaches several of
    # them, and a DOM query walks the whole transcript subtree each time.

    @property
    def transcript(self) -> TranscriptView:
        return self._part("#native-transcript", TranscriptView)

    @property
    def composer(self) -> NativeComposer:
        return self._part("#native-composer", NativeComposer)

    @property
    def approval(self) -> NativeApproval:
        return self._part("#native-approval", NativeApproval)

    def _part(self, selector: str, kind: type[PartT]) -> PartT:
        found = self._parts.get(selector)
        if found is None or not found.is_attached:
            found = self._parts[selector] = self.query_one(selector, kind)
        assert isinstance(found, kind)
        return found

    def on_mount(self) -> None:
        # Errors already in a replayed journal were reported when they happened.
        self._errors_seen = {
            i.key for i in self.session.snapshot().transcript.items if i.tone == "err"
        }
        self.composer.on_draft = self._draft_changed
        saved = load_draft(self.session.name)
        if saved.draft:
            self.composer.load_text(saved.draft)
        self.session.on_change = self._session_changed
        self.session.restore_queue([q.text for q in saved.queued])
        # The activity line's clock ticks only while a turn runs (`_sync` resumes
        # and pauses it): an idle pane wakes nothing.
        self._ticker = self.set_interval(0.12, self._tick, pause=True)
        self._sync()
        if self.display or self._focus_on_mount:
            # A host that mounts the pane hidden (a dashboard's background pane)
            # gives it focus when it selects it (`focus_composer`).
            self._focus_inside()

    async def on_unmount(self) -> None:
        self.save_draft()
        self.session.on_change = None
        await self.session.close()

    def save_draft(self) -> None:
        """Persist the draft and the queue (Ctrl+Q and unmount both do)."""
        queued = [QueuedInput(text=text) for text in self.session.queued]
        try:
            save_draft(self.session.name, PersistedDraft(draft=self._draft, queued=queued))
        except OSError as exc:
            self.notice = f"draft not saved: {exc.strerror or exc}"

    # ---- session -> view ------------------------------------------------------------

    def _session_changed(self) -> None:
        if not self._dirty:
            self._dirty = True
            self.call_later(self._sync)

    def _sync(self) -> None:
        self._dirty = False
        snap = self.session.snapshot()
        if snap.transcript is not self._reduced:
            # Items changed (not just a streamed token): what settled, what failed.
            self._reduced = snap.transcript
            self._scan(snap.transcript.items)
        self.approval.show(snap.pending)
        if snap.pending is None and self.approval.has_focus:
            self.composer.focus()
        self._tick()
        self.refresh_status()
        if self._ticker is not None:
            if snap.running:
                self._ticker.resume()
            else:
                self._ticker.pause()

    def _scan(self, items: tuple[Item, ...]) -> None:
        settled = {
            i.key
            for i in items
            if i.kind == "tool"
            and i.outcome is not None
            and i.outcome.kind not in ("pending", "awaiting", "running")
        }
        if settled - self._known and not self.transcript.follow:
            self.unread = True
        self._known = settled
        for item in items:
            if item.tone == "err" and item.key not in self._errors_seen:
                self._errors_seen.add(item.key)
                self.post_message(self.ErrorRaised(self, item.text))

    def _activity(self) -> Line | None:
        snap = self.session.snapshot()
        if snap.running and snap.turn_started is not None and snap.state != "blocked":
            return activity_line(time.monotonic() - snap.turn_started, snap.turn_tokens)
        return None

    def activity(self) -> str:
        """The activity line as drawn, or '' when no turn runs."""
        line = self._activity()
        return "".join(part for part, _ in line) if line is not None else ""

    def _tick(self) -> None:
        snap = self.session.snapshot()
        self.transcript.show(snap.transcript.items, snap.streaming, self._activity())
        self._hint(snap.queued)

    def _put(self, selector: str, content: Text | str) -> None:
        """Update a one-line static only when its content changed (an update is a
        relayout; the activity tick must not cause one)."""
        key = content.plain if isinstance(content, Text) else content
        if self._shown.get(selector) != key:
            self._shown[selector] = key
            self._part(selector, Static).update(content)

    def _hint(self, queued: tuple[str, ...]) -> None:
        mode = HINTS[self.session.submit_mode()]
        waiting = f"   ⧗ {len(queued)} queued" if queued else ""
        label = f"   {self.composer.mode} mode" if self.composer.mode != "default" else ""
        # Through `_put`: this runs on every activity tick, and an update that
        # changes nothing would still relayout the whole screen around it.
        self._put("#native-hint", f"  ? for shortcuts   {mode}{waiting}{label}")

    def deliver(self, text: str) -> str:
        """Text from outside the composer (mail, a nudge) through the same submit
        path as the operator's Enter: sent, steer or queued (never an approval answer)."""
        outcome = self.session.submit(text, commands=False)
        self._session_changed()
        return outcome

    def refresh_status(self) -> None:
        snap = self.session.snapshot()
        state = snap.state
        if snap.pending is not None:
            state = "blocked"
        elif state == "completed" and self.unread:
            state = "unread"
        if state != self.state:
            self.state = state
            self.post_message(self.StateChanged(self, state))
        route = snap.route
        line = status_line(
            route.label,
            route.name,
            route.billing,
            state,
            snap.context_left,
            shorten_home(str(self.session.workdir.root)),
            self._branch,
            self.notice,
            max(20, self.size.width - 2),
        )
        self._put("#native-status", to_text([line]))

    # ---- input ----------------------------------------------------------------------

    def on_native_composer_submitted(self, message: NativeComposer.Submitted) -> None:
        message.stop()
        self.composer.placeholder = ""
        if self.session.submit(message.text) == "failed" and not self.composer.text:
            # The journal could not take it (the fault is shown): nothing is lost.
            self.composer.load_text(message.text)

    def type_now(self, key: str, character: str | None) -> bool:
        """Type a plain character straight into the composer, if that is where
        the key would go: the composer has the focus (no dialog, no transcript
        focus) and the key means nothing else there. A router that calls this
        synchronously keeps keys in order and spares each one Textual's
        forwarding (bindings, dispatch); False: forward it as usual."""
        composer = self.composer
        if self.app.focused is not composer or not composer.types_plainly(key, character):
            return False
        assert character is not None
        composer.type_character(character)
        return True

    def focus_composer(self) -> None:
        """Where focus goes when the pane is selected (the dialog first, if open)."""
        if not self.is_mounted:
            self._focus_on_mount = True  # selected before it was mounted
            return
        self._focus_inside()

    def _focus_inside(self) -> None:
        if self.approval.request is not None:
            self.approval.focus()
        else:
            self.composer.focus()

    def _draft_changed(self, draft: str) -> None:
        """The composer's draft changed (told directly: no message per keystroke)."""
        self._draft = draft
        self._complete(draft)

    def _complete(self, draft: str) -> None:
        """Completions above the box: `/` commands or a last `@path` token."""
        rows = completions(self.session.workdir, draft)[:6]
        if not rows and not self._completing:
            return  # the usual keystroke: nothing offered before, nothing now
        self._completing = bool(rows)
        box = self._part("#native-complete", Static)
        self.composer.completion = rows[0][0] if rows else None
        if box.display != bool(rows):
            box.display = bool(rows)
        if rows:
            text = "\n".join(f"  {label:<28}{detail}" for label, detail in rows)
            box.update(Text(text, style="dim"))

    def on_native_composer_mode_changed(self, message: NativeComposer.ModeChanged) -> None:
        message.stop()
        self._tick()

    def on_native_approval_answered(self, message: NativeApproval.Answered) -> None:
        message.stop()
        if self.session.answer(message.call_id, message.answer) and message.answer == "deny":
            # The refusal is already steering; what the operator types next steers too.
            self.composer.placeholder = "tell the agent what to do differently (enter steers)"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # An open, focused dialog takes Esc itself, as a key with its read time
        # (`NativeApproval.takes`); the binding would answer it whenever handled.
        # (Asked for the footer's bindings too, perhaps before the parts mount.)
        dialog = self._parts.get("#native-approval")
        if action == "escape" and isinstance(dialog, NativeApproval) and dialog.is_attached:
            if dialog.request is not None and dialog.has_focus:
                return False
        return True

    def action_escape(self) -> None:
        """Esc closes the dialog first (as its last option), else interrupts the turn."""
        if self.approval.request is not None:
            self.approval.deny()
            return
        self.session.interrupt()

    def action_arm_quit(self) -> None:
        now = time.monotonic()
        if now - self._quit_armed <= QUIT_WINDOW:
            self.post_message(self.CloseRequested(self, confirmed=True))
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
        self.save_draft()
        self.post_message(self.CloseRequested(self))

    def action_expand_last(self) -> None:
        self.transcript.toggle_last()

    def on_transcript_view_reached_bottom(self, message: TranscriptView.ReachedBottom) -> None:
        message.stop()
        if self.unread:
            self.unread = False
            self.refresh_status()
