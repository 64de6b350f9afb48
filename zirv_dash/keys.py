"""Key and mouse encoding for children, xterm-style.

Keys arrive as names in the "mod+mod+key" convention (`ctrl+a`, `shift+up`,
`alt+x`, `f5`, `question_mark`) with an optional character, which is what the UI
toolkit reports; this module turns them into the bytes an xterm would send, so a
child sees exactly what it would see in tmux. No UI imports here.
"""

from __future__ import annotations

from zirv_dash import kitty_keys
from zirv_dash.key_tables import (
    CSI,
    CTRL_SPECIAL,
    CURSOR_KEYS,
    ESC,
    F_SS3,
    F_TILDE,
    KITTY_SPECIAL,
    MODIFIERS,
    NAMED_CHARS,
    TILDE_KEYS,
    mod_param,
    split_key,
)

__all__ = [
    "CSI",
    "CTRL_SPECIAL",
    "CURSOR_KEYS",
    "ESC",
    "F_SS3",
    "F_TILDE",
    "KITTY_SPECIAL",
    "MODIFIERS",
    "NAMED_CHARS",
    "TILDE_KEYS",
    "bracket_paste",
    "encode_key",
    "encode_mouse",
    "key_name_problem",
    "mod_param",
    "split_key",
]

NAMED_KEYS = frozenset(
    {"enter", "tab", "escape", "backspace", "insert", "delete", "pageup", "pagedown"}
    | set(CURSOR_KEYS)
    | {f"f{n}" for n in range(1, 25)}
)
"""Key names (besides single characters and `NAMED_CHARS`) a terminal can report."""


def key_name_problem(key: str) -> str | None:
    """Why `key` is not a key name a press could ever arrive as, or None.

    `ctlr+a` is a typo no chord can match: it must be refused when the keymap is
    loaded, not accepted silently with every binding behind it unreachable.
    """
    if not key:
        return "is empty"
    mods, base = split_key(key)
    if len(base) == 1:
        return None if base.isprintable() else "is not a printable character"
    if base in NAMED_CHARS or base in NAMED_KEYS:
        return None
    head, sep, _rest = base.partition("+")
    if sep and head:
        return f"has unknown modifier {head!r} (modifiers: {', '.join(MODIFIERS)})"
    return (
        f"names unknown key {base!r} (use a single character, or a name such as "
        "tab, enter, escape, up, pageup, home, f1, space, question_mark)"
    )


def _base_char(base: str, character: str | None) -> str | None:
    if len(base) == 1:
        return base
    if base in NAMED_CHARS:
        return NAMED_CHARS[base]
    if character and len(character) == 1 and character.isprintable():
        return character
    return None


KITTY_DISAMBIGUATE = 1
KITTY_REPORT_ALTERNATES = 4
KITTY_REPORT_ALL = 8


def encode_key(
    key: str, character: str | None = None, app_cursor: bool = False, kitty_flags: int = 0
) -> bytes:
    """Bytes for one key press, as xterm sends them. b"" when nothing should be sent.

    `kitty_flags` are the keyboard-protocol flags the child pushed (we answer its
    query with them, so we must honour them): with "disambiguate", Esc and keys
    held with Ctrl or Alt arrive as `CSI code;mods u`, which is how such an app
    tells Esc from the start of a sequence and Shift+Enter from Enter; the
    other flags are `kitty_keys`'.
    """
    if kitty_flags & KITTY_REPORT_ALL:
        return kitty_keys.encode_all(key, character, kitty_flags).encode()
    mods, base = split_key(key)
    if kitty_flags & KITTY_DISAMBIGUATE:
        kitty = _encode_kitty(mods, base, character)
        if kitty and kitty_flags & KITTY_REPORT_ALTERNATES:
            kitty = kitty_keys.with_alternate(kitty, key, character)
        if kitty:
            return kitty.encode()
    text = _encode(mods, base, character, app_cursor)
    return text.encode("utf-8", errors="replace") if text else b""


def _encode_kitty(mods: frozenset[str], base: str, character: str | None) -> str:
    """The CSI-u form for the keys "disambiguate" changes; "" for every other key."""
    param = mod_param(mods)
    if base in KITTY_SPECIAL:
        code = KITTY_SPECIAL[base]
        if base == "escape":
            return f"{CSI}{code}u" if param == 1 else f"{CSI}{code};{param}u"
        # Enter, Tab and Backspace keep their legacy bytes unless modified.
        if param == 1 or (base == "tab" and mods == {"shift"}):
            return ""
        return f"{CSI}{code};{param}u"
    if not (mods & {"ctrl", "alt", "meta"}):
        return ""
    char = _base_char(base, character)
    if char is None or len(char) != 1:
        return ""
    return f"{CSI}{ord(char.lower())};{param}u"


def _encode(mods: frozenset[str], base: str, character: str | None, app_cursor: bool) -> str:
    alt = "alt" in mods or "meta" in mods
    ctrl = "ctrl" in mods
    shift = "shift" in mods
    param = mod_param(mods)

    if base == "enter":
        return ESC + "\r" if (shift or alt) else "\r"
    if base == "tab":
        if shift:
            return CSI + "Z"
        return (ESC if alt else "") + "\t"
    if base == "escape":
        return ESC + ESC if alt else ESC
    if base == "backspace":
        core = "\x08" if ctrl else "\x7f"
        return (ESC if alt else "") + core
    if base in CURSOR_KEYS:
        final = CURSOR_KEYS[base]
        if param > 1:
            return f"{CSI}1;{param}{final}"
        if app_cursor:
            return ESC + "O" + final
        return CSI + final
    if base in TILDE_KEYS:
        num = TILDE_KEYS[base]
        return f"{CSI}{num};{param}~" if param > 1 else f"{CSI}{num}~"
    if base.startswith("f") and base[1:].isdigit():
        n = int(base[1:])
        if n in F_SS3:
            return f"{CSI}1;{param}{F_SS3[n]}" if param > 1 else ESC + "O" + F_SS3[n]
        if n in F_TILDE:
            return f"{CSI}{F_TILDE[n]};{param}~" if param > 1 else f"{CSI}{F_TILDE[n]}~"
        return ""

    char = _base_char(base, character)
    if char is None:
        # An unnamed key: trust the raw character the terminal sent, if any.
        if character and not (ctrl or alt):
            return character
        return ""
    if ctrl:
        lowered = char.lower()
        if "a" <= lowered <= "z":
            byte = chr(ord(lowered) & 0x1F)
        elif char in CTRL_SPECIAL:
            byte = chr(CTRL_SPECIAL[char])
        else:
            byte = char
        return (ESC if alt else "") + byte
    if shift and len(char) == 1 and char.isalpha():
        char = char.upper()
    if alt:
        return ESC + char
    return char


# -- mouse ---------------------------------------------------------------------------

WHEEL_UP = 64
WHEEL_DOWN = 65


def encode_mouse(
    button: int,
    column: int,
    row: int,
    *,
    press: bool = True,
    encoding: str = "sgr",
    motion: bool = False,
    shift: bool = False,
    alt: bool = False,
    ctrl: bool = False,
) -> bytes:
    """A mouse report for a child. `button`: 0 left, 1 middle, 2 right, 64/65 wheel.
    `column`/`row` are 1-based pane-local cells."""
    code = button
    if motion:
        code += 32
    if shift:
        code += 4
    if alt:
        code += 8
    if ctrl:
        code += 16
    if encoding == "sgr":
        return f"{CSI}<{code};{column};{row}{'M' if press else 'm'}".encode()
    if encoding == "urxvt":
        if not press:
            code = 3 + (code & ~3 & ~64)
        return f"{CSI}{code + 32};{column};{row}M".encode()
    # X10 / normal: one byte each, offset by 32, clamped so it stays a valid byte.
    if not press:
        code = 3 + (code & 0b11100)
    cx = min(column, 223) + 32
    cy = min(row, 223) + 32
    return b"\x1b[M" + bytes([min(code + 32, 255), cx, cy])


def bracket_paste(text: str, enabled: bool) -> bytes:
    """Pasted text for a child; wrapped in 2004 markers when the child asked for them.
    Any end marker inside the text is removed so a paste cannot break out early."""
    data = text.replace("\r\n", "\r").replace("\n", "\r")
    if enabled:
        data = data.replace("\x1b[201~", "")
        return ("\x1b[200~" + data + "\x1b[201~").encode("utf-8", errors="replace")
    return data.encode("utf-8", errors="replace")
