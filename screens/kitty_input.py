"""Key repeats and releases from an outer terminal that reports event types
(the kitty keyboard protocol's flag 2), as events the dashboard can route.

Textual reads key presses only: ``CSI 97;1:3u`` (the release of ``a``) is not a
key to it. Our input parser (`screens.driver.InputParser`) takes such a
sequence apart before Textual does: Textual names the key from the same
sequence without the event type, so a repeat or release is named exactly as
its press, and the event carries the type. A repeat is handled as a press
everywhere (holding an arrow in a list still moves), a release only by the
dashboard's router, which sends it to the focused pane's child when that child
asked for event types (`zirv_dash.key_events`); no binding or dialog sees one.
"""

from __future__ import annotations

import re

from textual import events

from zirv_dash.key_events import PRESS, RELEASE

EVENT_TYPE = re.compile(r"\x1b\[([0-9:]*);([0-9]*):([123])((?:;[0-9:]*)?)([u~A-Z])")
"""A kitty key escape code with an event type after its modifiers."""

PUSH_FLAGS = 1 | 2 | 8 | 16
"""What zirv asks a terminal that answered ``CSI ? u`` for: Textual's own flags
(disambiguate, all keys as escape codes, associated text) and event types.
Not 4 (alternate keys): Textual cannot read ``code:shifted``; the shifted key a
child asks for is worked out from the key itself (`kitty_keys`)."""


class KittyKey(events.Key):
    """A key event of type 2 (repeat) or 3 (release); presses stay `events.Key`."""

    def __init__(self, key: str, character: str | None, event_type: int) -> None:
        super().__init__(key, character)
        self.event_type = event_type


# Dispatched as the key it is (to `on_key` handlers), not as an event of its own.
KittyKey.handler_name = events.Key.handler_name


def event_type(event: events.Key) -> int:
    return event.event_type if isinstance(event, KittyKey) else PRESS


def is_release(event: object) -> bool:
    return isinstance(event, KittyKey) and event.event_type == RELEASE


def without_event_type(sequence: str) -> tuple[str, int] | None:
    """(the sequence as a press, its event type), or None if it has no type."""
    m = EVENT_TYPE.fullmatch(sequence)
    if m is None:
        return None
    code, mods, kind, text, final = m.groups()
    return f"\x1b[{code};{mods or '1'}{text}{final}", int(kind)
