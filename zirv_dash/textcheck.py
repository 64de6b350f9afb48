"""Checks every string from an external record must pass before we act on it.

A string that reaches `exec`, a file name or the outer terminal has to be strict
UTF-8 with no NUL: a lone surrogate (`"\\ud800"`, legal in JSON) cannot be
encoded for `execve` and a NUL truncates it. Records (spawn requests and acks,
roster, registry, handover, mail headers) are decoded first, then walked with
`require_encodable`, so no such string gets past the decoder into a fork.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence


class UnencodableText(ValueError):
    """A string field an external record carried is unusable; names the field."""


def text_problem(value: str) -> str | None:
    """Why `value` cannot be used as an argument, path or header, or None."""
    if "\x00" in value:
        return "contains a NUL character"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"is not valid UTF-8 text (character {exc.start})"
    return None


def os_text_problem(value: str) -> str | None:
    """Why `value` cannot be handed to the system (an exec argument, an
    environment value, a path), or None. Unlike `text_problem`, the system's own
    undecodable bytes pass: a directory or `$PWD` holding a non-UTF-8 byte reaches
    Python as a surrogate escape (`os.fsdecode`), which `os.fsencode` turns back
    into the very same bytes for exec. A lone surrogate no byte decodes to (the
    `\\ud800` a JSON record may carry) still cannot be encoded and is refused."""
    if "\x00" in value:
        return "contains a NUL character"
    try:
        os.fsencode(value)
    except UnicodeEncodeError as exc:
        return f"is not valid UTF-8 text (character {exc.start})"
    return None


def check_text(field: str, value: str) -> str:
    """`value` unchanged, or UnencodableText naming `field`."""
    problem = text_problem(value)
    if problem is not None:
        raise UnencodableText(f"field `{field}` {problem}")
    return value


def require_encodable(value: object, where: str = "record", depth: int = 0) -> None:
    """Walk a decoded JSON value; raise UnencodableText for the first bad string
    (keys included). Depth is bounded so a hostile nesting cannot recurse forever."""
    if depth > 64:
        raise UnencodableText(f"{where}: nested too deeply")
    if isinstance(value, str):
        check_text(where, value)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            name = check_text(f"{where} key", key) if isinstance(key, str) else str(key)
            require_encodable(item, f"{where}.{name}" if where != "record" else name, depth + 1)
    elif isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        for index, item in enumerate(value):
            require_encodable(item, f"{where}[{index}]", depth + 1)
