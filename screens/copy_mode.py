"""Copy mode (`Ctrl+A [`): keyboard navigation, search and copy over scrollback.

The tmux habit: a cursor over the pane's scrollback + screen; arrows (or
h/j/k/l), PgUp/PgDn, g/G (oldest line / live view), Home/End (0/$); `/` and `?`
search forward/backward incrementally with every match highlighted; `n`/`N`
repeat; `[`/`]` (or `p`/`P`) jump to the previous/next prompt and `o` (or
`Ctrl+A`) selects the output of the command under the cursor, where the shell
marks its prompts (OSC 133); `v` (or space) starts a selection at the cursor;
`y` or Enter copies it and leaves; Enter with nothing selected on a hyperlink
(OSC 8) asks to open it; Esc (or q) leaves.

The overlay covers exactly the pane's area and renders the pane's model with
TerminalView's own row renderer (and cache), at its own scroll position; the
pane's live view and PTY are untouched. Output that arrives meanwhile does not
move what is shown: the position is pinned to the text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.geometry import Region
from textual.screen import ModalScreen

from widgets.copy_view import CopyView
from widgets.status_line import StatusLine, fit_pieces
from zirv_dash.dash import selection as sel
from zirv_dash.dash import shell_blocks
from zirv_dash.dash.hyperlinks import link_at
from zirv_dash.panes.pane import Pane

__all__ = ["HINT", "CopyModeScreen", "CopyView", "StatusLine", "fit_pieces"]

POLL_INTERVAL = 0.1
HINT = (
    "copy · arrows/PgUp/PgDn/g/G move · [ ] prompts · / ? search · n/N next · v select"
    " · o output · y/⏎ copy · esc"
)


class CopyModeScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    CopyModeScreen {
        background: $background 0%;
        align: left top;
    }
    CopyModeScreen #copy-box {
        width: 10;
        height: 10;
    }
    CopyModeScreen CopyView {
        height: 1fr;
    }
    CopyModeScreen #copy-status {
        height: 1;
        width: 1fr;
        background: $warning 30%;
        color: $foreground;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = []

    def __init__(
        self,
        pane: Pane,
        region: Callable[[], Region],
        copy: Callable[[str], None],
        notify: Callable[[str], None],
        open_link: Callable[[str], None] | None = None,
    ) -> None:
        """`region`: where the pane is on screen now (the overlay covers it)."""
        super().__init__()
        self.pane = pane
        self.region_of = region
        self.pane_region = region()
        self.copy_fn = copy
        self.notify_text = notify
        self.open_link = open_link
        """Asks to open a hyperlink (Enter on a linked cell with nothing selected)."""
        self.copy_view = CopyView(pane)
        self.searching: str | None = None
        """"/" or "?" while a search query is being typed."""
        self.forward = True
        self._search_origin: sel.Point = (0, 0)
        self._search_text = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="copy-box"):
            yield self.copy_view
            yield StatusLine(HINT, id="copy-status")

    def on_mount(self) -> None:
        self._place()
        self.set_interval(POLL_INTERVAL, self.copy_view.poll, name="copy-poll")

    def _place(self) -> None:
        region = self.pane_region
        box = self.query_one("#copy-box")
        box.styles.offset = (region.x, region.y)
        box.styles.width = region.width
        box.styles.height = region.height

    def on_resize(self, event: events.Resize) -> None:
        # The dashboard below lays out first; follow the pane once it has.
        def follow() -> None:
            region = self.region_of()
            if region.area and region != self.pane_region:
                self.pane_region = region
                self._place()
                self.copy_view.clear_selection()

        self.call_after_refresh(follow)

    def _status(self) -> None:
        status = self.query_one("#copy-status", StatusLine)
        v = self.copy_view
        if self.searching is not None:
            miss = "" if v.current is not None or not self._search_text else "  (no match)"
            status.set_text(f"{self.searching}{self._search_text}█{miss}")
        elif v.sel_anchor is not None:
            status.set_text("selecting · move to extend · y/⏎ copy · v cancel · esc leave")
        elif v.pattern:
            state = "" if v.current is not None else " (no match)"
            status.set_text(f"search: {v.pattern}{state} · n/N next/previous · esc leave")
        else:
            status.set_text(HINT)

    # -- keys -----------------------------------------------------------------------------

    def on_key(self, event: events.Key) -> None:
        event.prevent_default()
        event.stop()
        if self.searching is not None:
            self._search_key(event)
        else:
            self._normal_key(event.key, event.character)
        self._status()

    def _search_key(self, event: events.Key) -> None:
        v = self.copy_view
        if event.key == "escape":
            self.searching = None
            self._search_text = ""
            v.pattern = ""
            v.current = None
            v.move_to(self._search_origin)
            return
        if event.key == "enter":
            self.searching = None
            return
        if event.key == "backspace":
            self._search_text = self._search_text[:-1]
        elif event.character and event.character.isprintable():
            self._search_text += event.character
        else:
            return
        v.find(self._search_text, self._origin_point(), self.forward)

    def _origin_point(self) -> sel.Point:
        line, col = self._search_origin
        # Incremental search starts at the cursor itself (tmux), not after it.
        return (line, col - 1) if self.forward else (line, col + 1)

    def _normal_key(self, key: str, character: str | None) -> None:
        v = self.copy_view
        line, col = v.cursor
        page = max(1, v.view_height - 1)
        cols = self.pane.model_view.columns
        if key in ("escape", "q"):
            self.dismiss(None)
        elif key in ("up", "k"):
            v.move_to((line - 1, col))
        elif key in ("down", "j"):
            v.move_to((line + 1, col))
        elif key in ("left", "h"):
            v.move_to((line, col - 1))
        elif key in ("right", "l"):
            v.move_to((line, col + 1))
        elif key in ("pageup", "ctrl+b"):
            v.scroll_lines(page)
            v.move_to((line - page, col))
        elif key in ("pagedown", "ctrl+f"):
            v.scroll_lines(-page)
            v.move_to((line + page, col))
        elif key == "g":
            v.move_to((0, 0))
        elif key == "G":
            v.move_to((v.line_count() - 1, 0))
            v.offset_lines = 0
            v.refresh()
        elif key in ("home",) or character == "0":
            v.move_to((line, 0))
        elif key in ("end",) or character == "$":
            text = "".join(v.lines().cells(line)).rstrip(" ")
            v.move_to((line, max(0, min(cols - 1, len(text) - 1))))
        elif character in ("/", "?"):
            self.searching = character
            self.forward = character == "/"
            self._search_origin = v.cursor
            self._search_text = ""
        elif character in ("n", "N") and v.pattern:
            forward = self.forward if character == "n" else not self.forward
            v.find(v.pattern, v.cursor, forward)
        elif character in ("[", "p", "]", "P"):
            # Between the prompts a shell marked (OSC 133).
            back = character in ("[", "p")
            found = (shell_blocks.prompt_before if back else shell_blocks.prompt_after)(
                self.pane.model_view, line
            )
            if found is None:
                self.notify_text(
                    "copy mode: no prompt marked (OSC 133) " + ("above" if back else "below")
                )
            else:
                v.move_to((found, 0))
        elif character == "o" or key == "ctrl+a":
            src = v.lines()
            span = shell_blocks.output_span(
                self.pane.model_view, line, cols, lambda n: not "".join(src.cells(n)).strip()
            )
            if span is None:
                self.notify_text("copy mode: no command output marked (OSC 133) here")
            else:
                v.select_span(span)
        elif character in ("v", " "):
            v.toggle_selection()
        elif key == "enter" or character == "y":
            text = v.selected_text()
            link = link_at(self.pane.model_view, line, col) if key == "enter" else None
            if not text and link is not None and self.open_link is not None:
                # Asked once this overlay is gone (a dialog pushed now would be
                # popped with it).
                self.app.call_later(self.open_link, link.uri)
                self.dismiss(None)
                return
            if not text:
                self.notify_text("copy mode: nothing selected (v starts a selection)")
                return
            self.copy_fn(text)
            self.dismiss(None)
