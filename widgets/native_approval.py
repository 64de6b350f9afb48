"""The numbered approval dialog of the native pane.

It is answered only by its own keys (1–3, ↑/↓, Tab/Shift+Tab, Enter, Esc = the
last option), and only by keys *read* once it has been drawn and `ANSWER_MARGIN`
has passed: a key typed before the dialog reached the glass (an Enter's echo, the
next word of a sentence) cannot answer something the operator never saw, however
late it is handled. Such a key is swallowed, never kept for later.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from zirv_dash.native.approvals import Answer, ApprovalRequest

# The clock Textual stamps every event with when the driver reads it
# (`Message.time`): a key's read time and the frame's draw time must compare.
from textual._time import get_time  # isort: skip

ANSWER_MARGIN = 0.3
"""How long after its frame is written a dialog starts taking answers: the
frame still has to reach the glass, and the operator to see it."""


class NativeApproval(Widget, can_focus=True):
    DEFAULT_CSS = """
    NativeApproval {
        height: auto;
        border: round $warning;
        padding: 0 1;
        display: none;
    }
    NativeApproval.-open { display: block; }
    """

    class Answered(Message):
        def __init__(self, dialog: NativeApproval, call_id: str, answer: Answer) -> None:
            super().__init__()
            self.dialog = dialog
            self.call_id = call_id
            self.answer = answer

        @property
        def control(self) -> NativeApproval:
            return self.dialog

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.request: ApprovalRequest | None = None
        self.cursor = 0
        self.drawn_for: str | None = None
        self.armed_at: float | None = None
        """When keys start to count for the drawn request (`Message.time` clock)."""

    def show(self, request: ApprovalRequest | None) -> None:
        if request == self.request:
            return
        self.request = request
        self.cursor = 0
        self.drawn_for = None
        self.armed_at = None
        self.set_class(request is not None, "-open")
        self.refresh(layout=True)
        if request is not None:
            self.focus()

    @property
    def ready(self) -> bool:
        """A key read now would answer (drawn, and the margin has passed)."""
        return self.takes(get_time())

    def takes(self, read_at: float) -> bool:
        """Whether a key read at `read_at` may answer the open request."""
        request = self.request
        if request is None or self.drawn_for != request.call_id or self.armed_at is None:
            return False
        return read_at >= self.armed_at

    def render(self) -> Text:
        request = self.request
        if request is None:
            return Text("")
        text = Text()
        text.append(f"{request.tool} — approval needed\n", style="bold")
        if request.note:
            text.append(f"  ⚠ {request.note}\n", style="bold yellow")
        text.append("  scope  ", style="dim")
        text.append(f"{request.scope}\n")
        text.append("  actor  ", style="dim")
        text.append("native worker (delegated)\n" if request.headless else "native agent\n")
        for line in request.preview:
            text.append(f"  {line}\n", style="dim")
        text.append("Do you want to proceed?\n")
        for index, (_, label) in enumerate(request.options()):
            mark = "❯ " if index == self.cursor else "  "
            style = "bold cyan" if index == self.cursor else ""
            text.append(f"{mark}{index + 1}. {label}\n", style=style)
        text.rstrip()
        return text

    def render_lines(self, crop: Region) -> list[Strip]:
        # The compositor asks for lines only to paint them: from here on a key
        # may answer what the operator can now see.
        # Lines are asked for within the frame's write (the compositor renders
        # and the driver writes in one step), so this is when it was written.
        lines = super().render_lines(crop)
        request = self.request
        if request is not None and lines and self.drawn_for != request.call_id:
            self.drawn_for = request.call_id
            self.armed_at = get_time() + ANSWER_MARGIN
        return lines

    def deny(self) -> bool:
        if not self.ready or self.request is None:
            return False
        options = self.request.options()
        return self._choose(len(options) - 1)

    def _choose(self, index: int) -> bool:
        request = self.request
        if request is None or not self.ready:
            return False
        options = request.options()
        if not 0 <= index < len(options):
            return False
        self.post_message(self.Answered(self, request.call_id, options[index][0]))
        return True

    async def _on_key(self, event: events.Key) -> None:
        request = self.request
        if request is None:
            return
        event.stop()
        event.prevent_default()
        if not self.takes(event.time):
            return  # read before the dialog was on the glass: it answers nothing
        count = len(request.options())
        key = event.key
        if key.isdigit() and len(key) == 1:
            self._choose(int(key) - 1)
        elif key in ("up", "shift+tab"):
            self.cursor = (self.cursor - 1) % count
            self.refresh()
        elif key in ("down", "tab"):
            self.cursor = (self.cursor + 1) % count
            self.refresh()
        elif key == "enter":
            self._choose(self.cursor)
        elif key == "escape":
            self._choose(count - 1)
