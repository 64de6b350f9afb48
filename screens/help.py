"""Help: every binding of the live keymap, grouped by section.

Laying out the bindings' table is most of what opening the overlay costs (Rich
measures and wraps every cell, and Textual asks for the render more than once
per frame), so the table's rendered segments are kept per width: the keymap does
not change while the overlay is installed, and a reopened overlay only replays
them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar, Self

from rich.console import Console, ConsoleOptions, RenderableType
from rich.measure import Measurement
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult, RenderResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.geometry import Region, Size
from textual.screen import Screen
from textual.strip import Strip
from textual.widgets import Static
from textual.widgets._toast import ToastRack

from screens.dialog import DialogScreen
from screens.tinted_background import BackgroundCache, faster, within_lines
from widgets.key_hints import KeyHints
from zirv_dash.keymap import ACTIONS, Keymap, describe_key

SECTIONS = ("navigate", "the selected row", "dashboard")
SCROLLBAR = 2
"""Columns the body's scroll container gives its scrollbar when the help is taller
than the dialog (Textual lays the body out without one first, then with one)."""


def help_rows(keymap: Keymap) -> list[tuple[str, str, str] | str]:
    """Section headings (str) and (label, keys, description) rows."""
    prefix = describe_key(keymap.prefix)
    rows: list[tuple[str, str, str] | str] = []
    for section in SECTIONS:
        rows.append(section)
        for action in ACTIONS:
            if action.section != section:
                continue
            label = action.label
            chords = keymap.chords_for(action.id)
            if action.id.startswith("focus_"):
                # Nine near-identical rows read better as one.
                if action.id != "focus_1":
                    continue
                digits = [n for n in range(1, 10) if keymap.chords_for(f"focus_{n}")]
                if not digits:
                    continue
                label, chords = "jump to pane", [f"{digits[0]}-{digits[-1]}"]
            if not chords:
                continue
            keys = " / ".join(f"{prefix} {describe_key(c)}" for c in chords)
            description = "focus that pane" if action.id == "focus_1" else action.description
            rows.append((label, keys, description))
    rows.append("no prefix")
    rows.append(("literal prefix", f"{prefix} {prefix}", "send the prefix key itself to the pane"))
    rows.append(("wheel", "", "scroll the pane (or forward to a mouse-aware app)"))
    rows.append(("every other key", "", "goes to the focused pane"))
    return rows


def help_text(keymap: Keymap) -> Table:
    """A grid whose description column wraps within itself: a long description
    continues under its own first word, never at the dialog's left edge."""
    table = Table.grid(padding=(0, 2, 0, 0))
    table.add_column(no_wrap=True)
    table.add_column(no_wrap=True)
    table.add_column(ratio=1)
    for row in help_rows(keymap):
        if isinstance(row, str):
            table.add_row(Text(row, Style(bold=True, color="cyan")))
            continue
        label, keys, description = row
        table.add_row(
            Text(f"  {label}", Style(bold=True)), Text(keys), Text(description, Style(dim=True))
        )
    table.add_row("")
    table.add_row(Text(f"keymap: {keymap.source}", Style(dim=True), overflow="fold"))
    return table


class RenderCache:
    """A Rich renderable that renders `inner` once per width and replays it."""

    def __init__(self, inner: RenderableType) -> None:
        self.inner = inner
        self._segments: dict[tuple[int, bool, str | None], list[Segment]] = {}
        self._measures: dict[int, Measurement] = {}

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterable[Segment]:
        key = (options.max_width, options.no_wrap or False, options.overflow)
        cached = self._segments.get(key)
        if cached is None:
            cached = self._segments[key] = list(console.render(self.inner, options))
        return cached

    def warm(self, console: Console, width: int) -> None:
        """Render for `width` now (ahead of the first time it is shown)."""
        list(self.__rich_console__(console, console.options.update_width(width)))

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        cached = self._measures.get(options.max_width)
        if cached is None:
            cached = self._measures[options.max_width] = Measurement.get(
                console, options, self.inner
            )
        return cached


def prepare(app: App[Any], keymap: Keymap, name: str) -> bool:
    """One step of getting the help overlay under `name` ready for its first
    showing; True once it is: installed, composed and mounted, its table
    rendered for the terminal's width and the whole overlay arranged at the
    terminal's size, so that `? help` only paints it. Call it while nothing else
    is asked of the loop, again a moment later while it returns False (each step
    lets the overlay's widgets take the events the previous one sent them), and
    again after the terminal is resized (see `is_ready`)."""
    if not app.is_screen_installed(name):
        app.install_screen(HelpScreen(keymap), name)
    screen = app.get_screen(name)
    if not isinstance(screen, HelpScreen):
        return True
    width = body_width(app.size.width)
    for each in (width, width - SCROLLBAR):
        screen.body.warm(app.console, each)
    if not screen.is_running:
        # Compose and mount it now, as its first showing would: an installed
        # screen that was shown once and closed is in this state too (running,
        # off the stack). Textual has no public call for it; without one the
        # first showing just pays for it.
        start = getattr(app, "_get_screen", None)
        if callable(start):
            start(name)
        return False
    if not screen.is_mounted or not arrange(screen, app.size):
        return False
    if screen.painted_at != app.size:
        # Render every widget's lines once, as the first showing would: each
        # widget keeps them until it changes, and the showing only composes them.
        screen.painted_at = app.size
        screen._compositor.render_strips()
    return True


def is_ready(app: App[Any], name: str) -> bool:
    """Whether the help under `name` is arranged for the terminal as it is now."""
    if not app.is_screen_installed(name):
        return False
    screen = app.get_screen(name)
    return screen.is_current or not _needs_layout(screen, app.size)


def arrange(screen: Screen[Any], size: Size) -> bool:
    """Lay `screen` out at `size` while it is off the stack, as pushing it would
    (its styles brought up to date, then its widgets arranged); True if nothing
    was left to do. A showing then finds it arranged for this size and only
    repaints (Textual lays a screen out only while it is shown, so its first
    showing, and its first after a resize, would arrange it first: ~65 ms at
    120x40, on the path of the key that opened it). Arranging adds widgets (the
    body's scrollbar) and sends the widgets events that can ask for another
    layout, hence more than one call."""
    if screen.is_current or not _needs_layout(screen, size):
        return True
    # What pushing it does first: the first focusable widget focused (its
    # focus styles), the toasts shown (none: the rack hides, which is a
    # layout), the styles brought up to date.
    screen._update_auto_focus()
    notifications = getattr(screen.app, "_notifications", None)
    if notifications is not None:
        for rack in screen.query(ToastRack):
            rack.show(notifications)
    screen.update_node_styles(animate=False)
    if isinstance(screen, HelpScreen):
        screen.styled_for = screen.style_key()
    screen._refresh_layout(size)
    screen._layout_required = False  # done just now, at the size it will be shown
    return False


def _needs_layout(screen: Screen[Any], size: Size) -> bool:
    return screen._size != size or screen._layout_required or bool(screen._layout_widgets)


def body_width(columns: int) -> int:
    """The help body's width at `columns` (see DEFAULT_CSS): 96% of the screen, at
    most 110, less the dialog's border and padding (2 each); without a scrollbar."""
    return max(1 + SCROLLBAR, min(columns * 96 // 100, 110) - 4)


class HelpScreen(DialogScreen[None]):
    DEFAULT_CSS = """
    HelpScreen .dialog { width: 96%; max-width: 110; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,enter,question_mark", "close", "close", show=False),
    ]

    def __init__(self, keymap: Keymap) -> None:
        super().__init__()
        self.keymap = keymap
        self.body = RenderCache(help_text(keymap))
        self._background = BackgroundCache()
        self.painted_at: Size | None = None
        """The size at which `prepare` last rendered it off the stack."""
        self.styled_for: tuple[object, ...] | None = None
        """What the overlay's styles were last brought up to date under (`style_key`)."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = "help"
            with VerticalScroll():
                yield Static(self.body, id="help-body")
            yield KeyHints([("esc", "close")], classes="dialog-footer")

    def style_key(self) -> tuple[object, ...]:
        """What the overlay's styles depend on besides its own widgets: the theme,
        the ANSI mode, whether the terminal has focus, which widget has it."""
        app = self.app
        return (app.theme, app.ansi_color, app.app_focus, self.focused)

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        # Textual's own handler (Screen's, which runs after this one) restyles
        # every node of a pushed screen: ~2 ms on the key that opens the help,
        # though `prepare` (or its last showing) styled it under the same theme
        # and focus, and nothing of it changed while it was off the stack (its
        # keymap is fixed while it is installed). Restyled only when they differ.
        key = self.style_key()
        if event.refresh_styles and key == self.styled_for:
            event.refresh_styles = False
        self.styled_for = key

    def render(self) -> RenderResult:  # type: ignore[override]  # a Visual, as Widget allows
        # The dimmed dashboard behind: tinted per style, strip to strip, and
        # only the lines that changed below since it was last drawn.
        return faster(super().render(), self._background)

    def render_line(self, y: int) -> Strip:
        line = super().render_line(y)
        self._background.drawn(y)
        return line

    def refresh(
        self,
        *regions: Region,
        repaint: bool = True,
        layout: bool = False,
        recompose: bool = False,
    ) -> Self:
        if regions and repaint and not (layout or recompose) and self.is_current:
            # A screen is repainted by regions only for the screen below it
            # (Textual's update of a background screen), and Textual asks for
            # the whole screen again on every later change below once it asked
            # for it once (as it does when the overlay opens): a spinner frame
            # repainted the whole overlay. Only lines that look different below
            # need drawing again.
            changed = self._background.changed_lines()
            if changed is not None:
                regions = tuple(within_lines(regions, changed))
                if not regions:
                    return self
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def action_close(self) -> None:
        self.dismiss(None)
