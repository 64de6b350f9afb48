"""Key repeats and releases for a child, the kitty keyboard protocol's flag 2
("report event types"), from what the outer terminal reported.

https://sw.kovidgoyal.net/kitty/keyboard-protocol/#event-types -- a press is
event type 1 (the default, never written), a repeat 2, a release 3, written
after the modifiers: ``CSI 97;1:3u`` is the release of ``a``. A child that
pushed flag 2 gets:

* presses as without the flag (``keys.encode_key``);
* repeats as presses, with ``:2`` where the press is an escape code (a text key
  sent as its text repeats as its text, as kitty does);
* releases as escape codes with ``:3`` and no associated text, only for a key
  whose press it was sent (a chord's key or a key pressed before the child
  asked never comes back as a lone release); Enter, Tab and Backspace as
  legacy bytes (without flag 8) have no release, as in kitty.

A child without flag 2 gets a repeat as one more press and no release; one
that pushed nothing, legacy bytes.
"""

from __future__ import annotations

import re

from zirv_dash.key_tables import KITTY_SPECIAL, split_key
from zirv_dash.keys import encode_key
from zirv_dash.kitty_keys import REPORT_ALL, REPORT_EVENT_TYPES, REPORT_TEXT

PRESS = 1
REPEAT = 2
RELEASE = 3

_ESCAPE = re.compile(r"\x1b\[([0-9:]*)(?:;([0-9]*)(?:;([0-9:]*))?)?([u~A-Z])")


def key_id(key: str) -> str:
    """What a press and its release have in common: the key, without modifiers
    or case (a release may come with other modifiers than its press)."""
    _mods, base = split_key(key)
    return base.lower() if len(base) == 1 else base


def with_event_type(sequence: str, event_type: int) -> str:
    """``sequence`` (a kitty escape code) with ``event_type`` after its
    modifiers; a release loses its associated text. Other bytes unchanged."""
    m = _ESCAPE.fullmatch(sequence)
    if m is None:
        return sequence
    code, mods, text, final = m.groups()
    out = f"\x1b[{code or '1'};{mods or '1'}:{event_type}"
    if text and event_type != RELEASE:
        out += f";{text}"
    return out + final


def encode_event(
    key: str,
    character: str | None,
    app_cursor: bool,
    flags: int,
    event_type: int,
    held: set[str],
) -> bytes:
    """Bytes for one key event for a child with kitty ``flags``; b"" for none.

    ``held`` is the view's set of keys whose press this child was sent while it
    asked for event types (kept between calls)."""
    types = bool(flags & REPORT_EVENT_TYPES)
    if event_type == RELEASE:
        ident = key_id(key)
        if not types or ident not in held:
            return b""
        held.discard(ident)
        return _release(key, character, flags).encode()
    data = encode_key(key, character, app_cursor, flags)
    if not data or not types:
        return data
    held.add(key_id(key))
    if event_type == REPEAT:
        return with_event_type(data.decode("utf-8", "replace"), REPEAT).encode()
    return data


def _release(key: str, character: str | None, flags: int) -> str:
    press = encode_key(key, character, False, flags).decode("utf-8", "replace")
    if _ESCAPE.fullmatch(press):
        return with_event_type(press, RELEASE)
    _mods, base = split_key(key)
    if base in KITTY_SPECIAL and base != "escape":
        return ""  # Enter, Tab, Backspace as legacy bytes: no release (kitty)
    # A text key sent as text: its release can only be an escape code.
    code = encode_key(key, character, False, (flags | REPORT_ALL) & ~REPORT_TEXT)
    return with_event_type(code.decode("utf-8", "replace"), RELEASE)
