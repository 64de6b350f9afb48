"""Keys in the kitty keyboard protocol, for a child that pushed its flags.

https://sw.kovidgoyal.net/kitty/keyboard-protocol/ -- the flags a child may
push, and what each changes in what it is sent:

* 1 disambiguate: Esc, and keys held with Ctrl or Alt, as ``CSI code;mods u``
  (``keys._encode_kitty``);
* 2 report event types: a press is event type 1, which is the default and is
  not written; repeats and releases are ``:2``/``:3`` after the modifiers
  (``key_events``), from a terminal that reports them;
* 4 report alternate keys: the shifted key after the key's code,
  ``CSI 97:65;2u`` for Shift+A;
* 8 report all keys as escape codes: text keys too (``CSI 97u`` for ``a``),
  and Enter, Tab and Backspace (``CSI 13u``, ``CSI 9u``, ``CSI 127u``);
* 16 report associated text (with 8): the text a key makes as code points
  after the modifiers, ``CSI 97;;97u`` for ``a``, ``CSI 97;2;65u`` for Shift+A.

The keys come from what the outer terminal sends: zirv asks a terminal that
answers ``CSI ? u`` (kitty, WezTerm, Ghostty, foot, iTerm2) for the protocol
with ``CSI > 1|2|8|16 u`` (``screens.driver``), so Shift+Enter, Ctrl+I apart
from Tab, Ctrl+Shift letters, repeats and releases arrive as such; a terminal
without it (tmux 3.3a, xterm) is asked for nothing, sends legacy bytes, and
the child gets what can be told from them.
"""

from __future__ import annotations

from zirv_dash.key_tables import (
    CSI,
    CURSOR_KEYS,
    F_TILDE,
    KITTY_SPECIAL,
    NAMED_CHARS,
    TILDE_KEYS,
    mod_param,
    split_key,
)

REPORT_EVENT_TYPES = 2
REPORT_ALTERNATES = 4
REPORT_ALL = 8
REPORT_TEXT = 16
# F1-F4 under the protocol (F3 is CSI 13~: CSI R is a cursor position report).
_F_CSI = {1: "P", 2: "Q", 4: "S"}


def encode_all(key: str, character: str | None, flags: int) -> str:
    """``key`` as flag 8 (with 4 and 16 as set) sends it; "" for nothing."""
    mods, base = split_key(key)
    param = mod_param(mods)
    if base in KITTY_SPECIAL:
        return _csi_u(str(KITTY_SPECIAL[base]), param, "")
    functional = _functional(base, param)
    if functional is not None:
        return functional
    char = _char(base, character)
    if char is None:
        return ""
    code, shifted = char, ""
    lower = char.lower()
    if char != lower and len(lower) == 1:
        # An upper-case letter is Shift and the letter's key.
        code, shifted = lower, char
        param = mod_param(mods | {"shift"})
    elif "shift" in mods and char.upper() != char and len(char.upper()) == 1:
        shifted = char.upper()
    field = str(ord(code))
    if flags & REPORT_ALTERNATES and shifted:
        field += f":{ord(shifted)}"
    text = ""
    if flags & REPORT_TEXT and not (mods & {"ctrl", "alt", "meta", "super", "hyper"}):
        made = shifted or char
        if made.isprintable():
            text = ":".join(str(ord(c)) for c in made)
    return _csi_u(field, param, text)


def with_alternate(sequence: str, key: str, character: str | None) -> str:
    """A flag-1 ``CSI code;mods u`` with the shifted key added (flag 4)."""
    mods, base = split_key(key)
    char = _char(base, character)
    if "shift" not in mods or char is None or not sequence.endswith("u"):
        return sequence
    shifted = char.upper()
    if shifted == char.lower() or len(shifted) != 1:
        return sequence
    code, _, rest = sequence[len(CSI) :].partition(";")
    return f"{CSI}{code}:{ord(shifted)};{rest}"


def _csi_u(field: str, param: int, text: str) -> str:
    if text:
        return f"{CSI}{field};{param if param > 1 else ''};{text}u"
    if param > 1:
        return f"{CSI}{field};{param}u"
    return f"{CSI}{field}u"


def _functional(base: str, param: int) -> str | None:
    """Keys the protocol keeps in their CSI forms (always CSI, never SS3)."""
    if base in CURSOR_KEYS:
        final = CURSOR_KEYS[base]
        return f"{CSI}1;{param}{final}" if param > 1 else f"{CSI}{final}"
    number: int | None = TILDE_KEYS.get(base)
    final = "~"
    if base.startswith("f") and base[1:].isdigit():
        n = int(base[1:])
        if n in _F_CSI:
            final = _F_CSI[n]
            return f"{CSI}1;{param}{final}" if param > 1 else f"{CSI}{final}"
        number = 13 if n == 3 else F_TILDE.get(n)
        if number is None:
            return ""
    if number is None:
        return None
    return f"{CSI}{number};{param}~" if param > 1 else f"{CSI}{number}~"


def _char(base: str, character: str | None) -> str | None:
    if len(base) == 1:
        return base
    if base in NAMED_CHARS:
        return NAMED_CHARS[base]
    if character and len(character) == 1 and character.isprintable():
        return character
    return None
