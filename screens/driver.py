"""The terminal driver: Textual's Linux driver with only the mouse reports we use.

Textual asks the terminal for every motion of the mouse (mode 1003), so each
pixel of movement over the dashboard becomes an escape sequence to parse and
an event to route, for nothing: no part of zirv reacts to a pointer that merely
hovers. Clicks and the wheel need 1000, drag-selection needs motion only while
a button is held (1002), and 1006 gives coordinates past column 223 (SGR).
"""

from __future__ import annotations

from textual.drivers.linux_driver import LinuxDriver

MOUSE_ON = (
    "\x1b[?1000h"  # button presses and releases, the wheel
    "\x1b[?1002h"  # motion while a button is held: drag-selection
    "\x1b[?1006h"  # SGR coordinates
)
MOUSE_OFF = (
    "\x1b[?1000l"
    "\x1b[?1002l"
    "\x1b[?1003l"  # in case anything before us asked for all motion
    "\x1b[?1006l"
)


class ButtonMotionDriver(LinuxDriver):
    """Requests button-motion mouse tracking (1002) instead of any-motion (1003)."""

    def _enable_mouse_support(self) -> None:
        if not self._mouse:
            return
        self.write(MOUSE_ON)
        self.flush()

    def _disable_mouse_support(self) -> None:
        if not self._mouse:
            return
        self.write(MOUSE_OFF)
        self.flush()
