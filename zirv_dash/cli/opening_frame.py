"""The opening frame: the dashboard's outline on the glass before the UI has loaded.

Loading the UI toolkit and laying out the first real frame takes most of a
second on a slow machine, and a terminal that stays blank that long reads as a
hang. What the dashboard will look like is known long before: the brand, how
many sessions open, the sidebar and its border, the footer's hints. This draws
exactly that, in the dashboard's own colours and cells, straight to the
terminal (on the alternate screen, as the UI will use it); the UI's first frame
then paints over every cell of it and adds what only it knows (the rows, the
pane, the pid).

Nothing typed meanwhile is lost or echoed over the frame: echo and line editing
are off until the UI takes the terminal, and the keys wait in the tty for it
(switching line editing back on hands buffered input on as a complete line).
Ctrl+C still interrupts. If the UI never takes over, `close` leaves the
alternate screen and puts the terminal back as it was.

The colours are the default theme's, as the UI renders them; the tests hold
every cell drawn here to the UI's own first frame, in 24-bit and 256 colours,
so the two cannot drift apart.
"""

from __future__ import annotations

import colorsys
import os
import sys
import termios
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from zirv_dash.fdio import write_all
from zirv_dash.keymap import Keymap, describe_key

RGB = tuple[int, int, int]

SIDEBAR_MIN_COLUMNS = 100
"""Below this width the dashboard hides the sidebar (`screens.dashboard`)."""

# The default theme's colours, as the UI puts them on the glass.
PANEL: RGB = (36, 47, 56)
"""Header and footer background."""
FOREGROUND: RGB = (224, 224, 224)
DIM_ON_PANEL: RGB = (160, 163, 166)
"""Dim text on the panel: the session count, the footer's hints."""
BRAND: RGB = (88, 209, 235)
SIDEBAR: RGB = (30, 30, 30)
SIDEBAR_TITLE: RGB = (158, 158, 158)
BORDER: RGB = (69, 80, 90)
"""The sidebar's right border (`▕`)."""
BOOST: RGB = (27, 27, 27)
"""The pane header's background."""

ENTER = "\x1b[?1049h\x1b[?25l"
"""The alternate screen and a hidden cursor, as the UI will have them."""
LEAVE = "\x1b[?1049l\x1b[?25h"


@dataclass(frozen=True)
class Outline:
    """What the first frame shows that is known before the UI loads."""

    columns: int
    rows: int
    sessions: int
    sidebar_cols: int
    footer_hint: str

    @property
    def sidebar_width(self) -> int:
        """The sidebar's columns, its border included (0: hidden at this width)."""
        if self.columns < SIDEBAR_MIN_COLUMNS:
            return 0
        return max(0, min(self.sidebar_cols, self.columns - 1))

    def pane_size(self) -> tuple[int, int]:
        """The pane area the dashboard lays out: right of the sidebar, under the
        header and the pane header, over the footer."""
        return max(1, self.columns - self.sidebar_width), max(1, self.rows - 3)


def footer_hint(keymap: Keymap, *, hosted: bool = False) -> str:
    """`^A ? help · ^A q quit` from the live keymap: a rebound or unbound chord
    shows as it is (or not at all). Attached to the runtime, leaving detaches."""
    prefix = describe_key(keymap.prefix)
    parts = []
    leave = ("detach", "detach") if hosted else ("quit", "quit")
    for action, label in (("help", "help"), leave):
        chords = keymap.chords_for(action)
        if chords:
            parts.append(f"{prefix} {describe_key(chords[0])} {label}")
    return " · ".join(parts)


def sessions_words(live: int, ended: int = 0) -> str:
    """The header's count: `1 session`, `3 sessions`, `0 live · 1 ended`."""
    if not ended:
        return f"{live} session" if live == 1 else f"{live} sessions"
    return f"{live} live · {ended} ended"


# -- colour --------------------------------------------------------------------------------


def color_system(probed: str | None, env: Mapping[str, str]) -> str | None:
    """The colour system the UI will draw with: "truecolor", "256", or None for
    one this frame does not draw in (16 colours, none at all)."""
    if env.get("NO_COLOR") is not None:
        return None  # the UI draws in monochrome
    if probed:
        return probed if probed in ("truecolor", "256") else None
    named = env.get("TEXTUAL_COLOR_SYSTEM", "").strip().lower()
    if named:
        return {"truecolor": "truecolor", "256": "256"}.get(named)
    # The UI's console guesses from COLORTERM, then TERM's colour suffix.
    if env.get("COLORTERM", "").strip().lower() in ("truecolor", "24bit"):
        return "truecolor"
    suffix = env.get("TERM", "").strip().lower().rpartition("-")[2]
    return "256" if suffix in ("256color", "kitty") else None


def xterm_256(rgb: RGB) -> int:
    """The 256-colour index the UI's console picks for `rgb`: a near-grey on the
    grey ramp, anything else in the 6x6x6 cube."""
    red, green, blue = rgb
    _hue, lightness, saturation = colorsys.rgb_to_hls(red / 255, green / 255, blue / 255)
    if saturation < 0.15:
        grey = round(lightness * 25.0)
        return 16 if grey == 0 else 231 if grey == 25 else 231 + grey

    def six(channel: int) -> int:
        return round(channel / 95 if channel < 95 else 1 + (channel - 95) / 40)

    return 16 + 36 * six(red) + 6 * six(green) + six(blue)


def _sgr(system: str, fg: RGB, bg: RGB, bold: bool = False) -> str:
    if system == "truecolor":
        colours = f"38;2;{fg[0]};{fg[1]};{fg[2]};48;2;{bg[0]};{bg[1]};{bg[2]}"
    else:
        colours = f"38;5;{xterm_256(fg)};48;5;{xterm_256(bg)}"
    return f"\x1b[0;{'1;' if bold else ''}{colours}m"


# -- the frame -----------------------------------------------------------------------------


def render(outline: Outline, system: str) -> str:
    """The whole frame: every cell of the screen, top left to bottom right."""
    width, height = outline.columns, outline.rows
    sidebar = outline.sidebar_width
    panel = _sgr(system, FOREGROUND, PANEL)
    lines = [_header(outline, system, sidebar > 0)]
    for y in range(1, height - 1):
        line = _sidebar_row(outline, system, sidebar, y) if sidebar else ""
        if y == 1:
            line += _sgr(system, FOREGROUND, BOOST) + " " * (width - sidebar)
        else:
            line += "\x1b[0m" + " " * (width - sidebar)  # the pane: the terminal's own colours
        lines.append(line)
    hint = outline.footer_hint + " "
    if len(hint) >= width:
        hint = ""
    footer = panel + " " * (width - len(hint)) + _sgr(system, DIM_ON_PANEL, PANEL) + hint
    lines.append(footer)
    return "".join(f"\x1b[{y + 1};1H{text}" for y, text in enumerate(lines)) + "\x1b[0m"


def _header(outline: Outline, system: str, wide: bool) -> str:
    brand = _sgr(system, BRAND, PANEL, bold=True) + "▌"
    name = _sgr(system, FOREGROUND, PANEL, bold=True) + "zirv"
    used = 5
    count = ""
    if wide:  # a narrow header shows one tab per pane instead, drawn by the UI
        words = f" · {sessions_words(outline.sessions)}"
        count = _sgr(system, DIM_ON_PANEL, PANEL) + words
        used += len(words)
    rest = _sgr(system, FOREGROUND, PANEL) + " " * max(0, outline.columns - used)
    return brand + name + count + rest


def _sidebar_row(outline: Outline, system: str, sidebar: int, y: int) -> str:
    inner = sidebar - 1  # the last column is the border
    if y == 1:
        count = str(outline.sessions)
        content = max(10, inner - 1)
        title = " SESSIONS"
        title += " " * max(1, content - len(title) - len(count) - 1) + count + " "
        body = _sgr(system, SIDEBAR_TITLE, SIDEBAR, bold=True) + title
        body += _sgr(system, FOREGROUND, SIDEBAR) + " " * max(0, inner - len(title))
    else:
        body = _sgr(system, FOREGROUND, SIDEBAR) + " " * inner
    return body + _sgr(system, BORDER, SIDEBAR) + "▕"


# -- the terminal --------------------------------------------------------------------------


class OpeningFrame:
    """The frame on the glass and the terminal's modes while it is there."""

    def __init__(self, tty_fd: int, out_fd: int, saved: list[Any]) -> None:
        self._tty_fd = tty_fd
        self._out_fd = out_fd
        self._saved: list[Any] | None = saved
        self.handed_over = False

    @classmethod
    def show(
        cls,
        outline: Outline,
        system: str | None,
        tty_fd: int | None = None,
        out_fd: int | None = None,
    ) -> OpeningFrame | None:
        """Draw the frame; None (and nothing drawn) where it cannot be drawn as
        the UI will draw it, or the terminal will not take the modes."""
        if system is None or outline.columns < 20 or outline.rows < 5:
            return None
        tty_fd = sys.stdin.fileno() if tty_fd is None else tty_fd
        if out_fd is None:
            # Where the UI will draw: Textual writes its frames to stderr.
            if sys.__stderr__ is None:
                return None
            out_fd = sys.__stderr__.fileno()
        if not os.isatty(out_fd):
            return None
        try:
            saved = termios.tcgetattr(tty_fd)
            quiet = list(saved)
            quiet[3] = saved[3] & ~(termios.ECHO | termios.ICANON)
            # An Enter typed while the frame shows stays CR, as the UI reads it
            # (ICRNL would hand the UI LF: Ctrl+J, no Enter).
            quiet[0] = saved[0] & ~termios.ICRNL
            cc = list(saved[6])
            cc[termios.VMIN], cc[termios.VTIME] = 1, 0
            quiet[6] = cc
            termios.tcsetattr(tty_fd, termios.TCSANOW, quiet)
        except (termios.error, OSError):
            return None
        frame = cls(tty_fd, out_fd, saved)
        try:
            write_all(out_fd, (ENTER + render(outline, system)).encode())
        except OSError:
            frame.close()
            return None
        return frame

    def hand_over(self) -> None:
        """The UI takes the terminal now: its modes go back as they were (the UI
        saves them to restore at exit), and the screen is the UI's to paint."""
        self._restore_modes()
        self.handed_over = True

    def close(self) -> None:
        """The UI ended, or never started: a frame it never took over is taken
        down (the UI leaves its own alternate screen itself)."""
        self._restore_modes()
        if not self.handed_over:
            self.handed_over = True
            try:
                write_all(self._out_fd, ("\x1b[0m" + LEAVE).encode())
            except OSError:
                pass

    def _restore_modes(self) -> None:
        if self._saved is None:
            return
        saved, self._saved = self._saved, None
        try:
            termios.tcsetattr(self._tty_fd, termios.TCSANOW, saved)
        except (termios.error, OSError):
            pass
