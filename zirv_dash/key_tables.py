"""Key names and the tables every key encoder shares (`keys`, `kitty_keys`)."""

from __future__ import annotations

MODIFIERS = ("shift", "alt", "ctrl", "meta", "super", "hyper")

# Named printable keys → their character (the toolkit names punctuation).
NAMED_CHARS: dict[str, str] = {
    "space": " ",
    "at": "@",
    "backslash": "\\",
    "slash": "/",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
    "circumflex_accent": "^",
    "underscore": "_",
    "question_mark": "?",
    "minus": "-",
    "plus": "+",
    "equals_sign": "=",
    "full_stop": ".",
    "comma": ",",
    "colon": ":",
    "semicolon": ";",
    "apostrophe": "'",
    "quotation_mark": '"',
    "number_sign": "#",
    "dollar_sign": "$",
    "percent_sign": "%",
    "ampersand": "&",
    "asterisk": "*",
    "left_parenthesis": "(",
    "right_parenthesis": ")",
    "less_than_sign": "<",
    "greater_than_sign": ">",
    "exclamation_mark": "!",
    "grave_accent": "`",
    "tilde": "~",
    "vertical_line": "|",
    "left_curly_bracket": "{",
    "right_curly_bracket": "}",
}

# Ctrl + character → control byte, for the non-letter cases.
CTRL_SPECIAL: dict[str, int] = {
    " ": 0x00,
    "@": 0x00,
    "2": 0x00,
    "[": 0x1B,
    "3": 0x1B,
    "\\": 0x1C,
    "4": 0x1C,
    "]": 0x1D,
    "5": 0x1D,
    "^": 0x1E,
    "6": 0x1E,
    "_": 0x1F,
    "/": 0x1F,
    "7": 0x1F,
    "?": 0x7F,
    "8": 0x7F,
}

CURSOR_KEYS = {"up": "A", "down": "B", "right": "C", "left": "D", "home": "H", "end": "F"}
TILDE_KEYS = {"insert": 2, "delete": 3, "pageup": 5, "pagedown": 6}
F_SS3 = {1: "P", 2: "Q", 3: "R", 4: "S"}
F_TILDE = {5: 15, 6: 17, 7: 18, 8: 19, 9: 20, 10: 21, 11: 23, 12: 24}

ESC = "\x1b"
CSI = "\x1b["


def split_key(key: str) -> tuple[frozenset[str], str]:
    """`ctrl+shift+up` → ({"ctrl","shift"}, "up"). A lone `+` key stays `plus`."""
    parts = key.split("+")
    mods: set[str] = set()
    while len(parts) > 1 and parts[0] in MODIFIERS:
        mods.add(parts.pop(0))
    base = "+".join(parts) or "plus"
    return frozenset(mods), base


def mod_param(mods: frozenset[str]) -> int:
    return (
        1
        + (1 if "shift" in mods else 0)
        + (2 if "alt" in mods or "meta" in mods else 0)
        + (4 if "ctrl" in mods else 0)
    )


KITTY_SPECIAL = {"escape": 27, "enter": 13, "tab": 9, "backspace": 127}
