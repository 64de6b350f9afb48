"""Text from outside made safe to draw: every control character shown, never sent.

Model text, tool output, file names, diffs and error bodies reach widgets that
write their characters to the operator's real terminal. A raw `ESC ] 2 ;…` there
sets the window title, `ESC ] 52 ;…` writes the clipboard, `ESC [ ? 1049 h`
switches screens, and a lone C1 `0x9b` is a CSI on terminals that honour 8-bit
controls. A terminal pane is safe because its child's bytes go through the
emulator; text drawn by a widget is not, so it goes through `visible` first.

Every C0 control except newline and tab, DEL, and every C1 control becomes a
visible placeholder: C0 and DEL as their Unicode control pictures (`␛` for ESC,
one cell each, so layout is unchanged), C1 as `\\x9b`-style text (there are no
pictures for C1). A CRLF line end is a newline. A lone surrogate (legal in JSON,
unencodable for the terminal) becomes U+FFFD. The result contains no control
character, so `visible` is idempotent and safe to apply at every entry point.
"""

from __future__ import annotations

import re

_TABLE: dict[int, str] = {code: chr(0x2400 + code) for code in range(0x20)}
del _TABLE[0x09], _TABLE[0x0A]  # tab and newline are layout, not controls
_TABLE[0x7F] = "\u2421"  # ␡
_TABLE.update({code: f"\\x{code:02x}" for code in range(0x80, 0xA0)})
_REPLACED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
"""What `visible` replaces: the controls above, and lone surrogates."""


def _placeholder(match: re.Match[str]) -> str:
    return _TABLE.get(ord(match.group()), "\ufffd")


def visible(text: str) -> str:
    """`text` with every control character but newline and tab made visible."""
    if text.isprintable():
        return text  # the common line: nothing to replace
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    return _REPLACED.sub(_placeholder, text)


def has_control(text: str) -> bool:
    """True when `text` holds a character `visible` would replace."""
    return _REPLACED.search(text) is not None
