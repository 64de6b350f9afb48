"""The native pane's composer: a bordered draft box with the §12.5 key contract.

Enter submits (the pane decides whether that sends, steers or queues);
Shift+Enter / Alt+Enter insert a newline; ↑ on the first line and ↓ on the last
walk the submit history (the live draft is stashed and restored); Ctrl+U clears;
a paste is one block with CRLF/CR normalised; Shift+Tab cycles a decorative
mode label. The composer never answers an approval: it has no path to one.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Offset, Region
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import TextArea
from textual.widgets.text_area import Location, Selection

from widgets.native_draft_line import RowShape, plain_cells

MODES = ("default", "accept-edits", "plan")
NEWLINE_KEYS = ("shift+enter", "alt+enter", "ctrl+j")


PROMPT = "> "


class NativeComposer(TextArea):
    COMPONENT_CLASSES = TextArea.COMPONENT_CLASSES | {"native-composer--prompt"}
    """`native-composer--prompt`: the `> ` drawn in the left padding of the top row."""
    DEFAULT_CSS = """
    NativeComposer, NativeComposer:focus {
        height: auto;
        min-height: 1;
        max-height: 8;
        border: none;
        padding: 0 0 0 2;
        background: transparent;
    }
    NativeComposer > .native-composer--prompt { color: $text-muted; }
    """

    class Submitted(Message):
        def __init__(self, composer: NativeComposer, text: str) -> None:
            super().__init__()
            self.composer = composer
            self.text = text

        @property
        def control(self) -> NativeComposer:
            return self.composer

    class ModeChanged(Message):
        def __init__(self, composer: NativeComposer, mode: str) -> None:
            super().__init__()
            self.composer = composer
            self.mode = mode

        @property
        def control(self) -> NativeComposer:
            return self.composer

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, soft_wrap=True, show_line_numbers=False, tab_behavior="focus")
        # A steady cursor: a blinking one repaints the composer twice a second for
        # as long as the pane is open (an idle dashboard would never be quiet), and
        # each blink frame can land on a keystroke's.
        self.cursor_blink = False
        self.submit_history: list[str] = []
        self._walk: int | None = None  # index into history, 0 = newest
        self._stash = ""
        self.mode = MODES[0]
        self.completion: str | None = None  # what Tab puts in place of the last token
        self.on_draft: Callable[[str], None] | None = None
        """Told the draft after every change, in place of the `Changed` message."""
        self._css_key: tuple[object, ...] | None = None
        self._prompt_color: Color | None = None
        self._prompt_cache: tuple[Style | None, Segment] | None = None
        self._row_shape: RowShape | None = None
        self._row_shape_key: tuple[object, ...] | None = None

    def post_message(self, message: Message) -> bool:
        """TextArea posts `SelectionChanged` on every cursor move and `Changed` on
        every edit, and each bubbles through one dispatch per ancestor: a few
        hundred microseconds a keystroke. Nothing reads the composer's cursor, and
        the pane that owns it is told of the draft directly."""
        if isinstance(message, TextArea.SelectionChanged):
            return True
        if isinstance(message, TextArea.Changed) and self.on_draft is not None:
            self.on_draft(self.text)
            return True
        return super().post_message(message)

    def _watch_selection(self, previous_selection: Selection, selection: Selection) -> None:
        """TextArea's cursor watcher scrolls the cursor into view on every move: a
        walk over the scroll geometry each keystroke. A draft that fits its box
        (the usual one: a line or a few) has nothing to scroll, so while it fits
        and is not scrolled, only the rest of the watcher's work is done: the
        cursor's offset, a screen selection cleared, the matching bracket, the
        terminal cursor. SelectionChanged is not posted (nothing reads it here)."""
        if not self.is_mounted:
            return
        wrapped = self.wrapped_document
        if self.scroll_offset != (0, 0) or (
            wrapped.height > 1 and wrapped.height > self.size.height
        ):
            super()._watch_selection(previous_selection, selection)
            return
        screen = self.app.screen
        if screen.selections:
            screen.clear_selection()
        self._cursor_offset = self._offset_of(selection.end)
        row, column = selection.end
        try:
            character = self.document[row][column]
        except IndexError:
            character = ""
        match = self.find_matching_bracket(character, selection.end)
        self._matching_bracket_location = match
        if match is not None:
            self.refresh_lines(self._cursor_offset[1])
        self.app.cursor_position = self.cursor_screen_offset

    def record_cursor_width(self) -> None:
        """As TextArea does after each edit (the column ↑/↓ aim for), with the
        cursor's offset found the short way when it can be."""
        self.navigator.last_x_offset = self._offset_of(self.cursor_location).x

    def _offset_of(self, location: Location) -> Offset:
        """`wrapped_document.location_to_offset`, without its walk over the
        wrapped sections when the draft is one unwrapped line and the text before
        `location` is plain ASCII (one cell a character, no tab)."""
        wrapped = self.wrapped_document
        row, column = location
        if row == 0 and wrapped.height == 1 and self.document.line_count == 1:
            before = self.document[0][:column]
            if plain_cells(before):
                return Offset(len(before), 0)
        return wrapped.location_to_offset(location)

    def render_lines(self, crop: Region) -> list[Strip]:
        """TextArea re-derives its theme from CSS on every render (a few ms a
        keystroke); here only when what it reads changed: the widget's style (it
        carries the focus and theme rules) and the app theme."""
        theme = self._theme
        if theme is not None:
            # Cheap to read (rich_style walks every ancestor; current_theme builds
            # the theme table): the colours the rules gave it, and the theme's name.
            styles = self.styles
            key = (styles.color, styles.background, self.app.theme, self.has_focus, id(theme))
            if key != self._css_key:
                theme.apply_css(self)
                self._css_key = key
                self._prompt_color = None  # the prompt's colour follows the same rules
        line = self._plain_draft(crop)
        if line is not None:
            shape_key = self._shape_key()
            shape = self._row_shape
            if shape is not None and self._row_shape_key == shape_key and shape.fits(line):
                return [shape.row(line)]
        strips = ScrollView.render_lines(self, crop)
        if strips and crop.y == 0 and crop.x == 0:
            # The prompt is part of the composer (not a widget beside it): one
            # widget fewer for every frame a keystroke draws.
            strips[0] = self._with_prompt(strips[0])
            if line is not None and len(strips) == 1:
                self._learn_row(strips[0], line, shape_key)
        return strips

    def _plain_draft(self, crop: Region) -> str | None:
        """The draft, when this render is of the composer's usual row (see
        widgets/native_draft_line.py): the whole of a one-row composer showing
        one line of plain text, the cursor after it, nothing selected, nothing
        scrolled, no suggestion or matched bracket drawn, and no language: the
        learnt row has the draft in one style, which syntax highlighting breaks
        into many (a row learnt without it would be drawn over a highlighted one),
        so a composer with a language always draws through TextArea."""
        if self.language is not None:
            return None
        width, height = self.outer_size
        if height != 1 or crop != Region(0, 0, width, 1):
            return None
        document = self.document
        if document.line_count != 1:
            return None
        line = document[0]
        if not line or not plain_cells(line):
            return None
        start, end = self.selection
        if start != end or end != (0, len(line)):
            return None
        if self.suggestion or self._matching_bracket_location is not None:
            return None
        if self.scroll_offset != (0, 0) or self.read_only:
            return None
        return line

    def _shape_key(self) -> tuple[object, ...]:
        """What the usual row's runs depend on beyond the draft and the styles
        (a change of those drops the shape: see notify_style_update): the theme
        and focus rules (`_css_key`), the width, the cursor, and what the app
        applies to every row."""
        app = self.app
        return (
            self._css_key,
            self.outer_size.width,
            self._draw_cursor,
            app.ansi_theme,
            app.native_ansi_color,
            tuple(self.get_line_filters()),
        )

    def notify_style_update(self) -> None:
        """Textual calls this on the composer whenever its styles are applied
        again, for a rule of its own or of any ancestor (a focus, a class, a
        theme): the colours behind the row may have changed."""
        self._row_shape = None
        super().notify_style_update()

    def _learn_row(self, strip: Strip, line: str, key: tuple[object, ...]) -> None:
        cached = self._prompt_cache
        if cached is None or next(iter(strip), None) is not cached[1]:
            return
        shape = RowShape.learn(strip, cached[1], line)
        if shape is not None:
            self._row_shape, self._row_shape_key = shape, key

    def _with_prompt(self, strip: Strip) -> Strip:
        width = len(PROMPT)
        if strip.cell_length < width:
            return strip
        segments = list(strip)
        first = segments[0] if segments else None
        if first is not None and first.text == " " * width and not first.control:
            # The usual line: the left padding is one segment of its own; the
            # prompt takes its place (no cutting and joining of the whole row).
            segments[0] = self._prompt_segment(first.style)
            return Strip(segments, strip.cell_length)
        head, rest = strip.divide([width, strip.cell_length])
        base = next((seg.style for seg in head if seg.style is not None), None)
        return Strip.join([Strip([self._prompt_segment(base)], width), rest])

    def _prompt_segment(self, base: Style | None) -> Segment:
        """The prompt over the padding's own style. The full style: a muted colour
        is translucent and only means something blended over the background it
        sits on; resolving it walks the styles of every ancestor, so it is done
        once per change of what it reads (see render_lines)."""
        if self._prompt_color is None:
            self._prompt_color = self.get_component_rich_style("native-composer--prompt").color
            self._prompt_cache = None
        cached = self._prompt_cache
        if cached is not None and cached[0] == base:
            return cached[1]
        segment = Segment(PROMPT, (base or Style()) + Style(color=self._prompt_color))
        self._prompt_cache = (base, segment)
        return segment

    def types_plainly(self, key: str, character: str | None) -> bool:
        """Whether this key is plain text for the draft: no key of the contract
        above gives it another meaning (`?` on an empty draft is the shortcuts)."""
        if character is None or len(character) != 1 or not character.isprintable():
            return False
        return not (key == "question_mark" and not self.text) and not self.read_only

    def type_character(self, character: str) -> None:
        """Insert one plain character as a typed key inserts it (the same edit
        TextArea's key handler makes), for a caller that routes keys itself."""
        start, end = self.selection
        self._replace_via_keyboard(character, start, end)

    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        if key == "enter":
            self._stop(event)
            self._submit()
            return
        if key in NEWLINE_KEYS:
            self._stop(event)
            self.insert("\n")
            return
        if key == "question_mark" and not self.text:
            self._stop(event)
            self.post_message(self.Submitted(self, "/help"))  # "? for shortcuts"
            return
        if key == "tab" and self.completion:
            self._stop(event)
            self._accept(self.completion)
            return
        if key == "ctrl+u":
            self._stop(event)
            self.clear()
            return
        if key == "shift+tab":
            self._stop(event)
            self.mode = MODES[(MODES.index(self.mode) + 1) % len(MODES)]
            self.post_message(self.ModeChanged(self, self.mode))
            return
        if key == "up" and self.cursor_location[0] == 0 and self._history_step(1):
            self._stop(event)
            return
        last = self.document.line_count - 1
        if key == "down" and self.cursor_location[0] == last and self._history_step(-1):
            self._stop(event)
            return
        await super()._on_key(event)

    async def _on_paste(self, event: events.Paste) -> None:
        self._stop(event)
        text = event.text.replace("\r\n", "\n").replace("\r", "\n")
        start, end = self.selection
        self.replace(text, start, end)  # one edit: the paste is one block

    @staticmethod
    def _stop(event: events.Event) -> None:
        event.stop()
        event.prevent_default()

    def _accept(self, completion: str) -> None:
        text = self.text
        cut = max(text.rfind(" "), text.rfind("\n")) + 1
        spacer = "" if completion.endswith("/") else " "
        self._show(text[:cut] + completion + spacer)

    def _submit(self) -> None:
        text = self.text
        if not text.strip():
            return
        if not self.submit_history or self.submit_history[0] != text:
            self.submit_history.insert(0, text)
        self._walk = None
        self.clear()
        self.post_message(self.Submitted(self, text))

    def _history_step(self, direction: int) -> bool:
        """Walk history: +1 older, -1 newer; past the newest restores the stash."""
        if direction > 0:
            target = 0 if self._walk is None else self._walk + 1
            if target >= len(self.submit_history):
                return False
            if self._walk is None:
                self._stash = self.text
            self._walk = target
            self._show(self.submit_history[target])
            return True
        if self._walk is None:
            return False
        if self._walk == 0:
            self._walk = None
            self._show(self._stash)
        else:
            self._walk -= 1
            self._show(self.submit_history[self._walk])
        return True

    def _show(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)
