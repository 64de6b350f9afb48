"""What programs tell their terminal about themselves, by OSC: a title (0/2),
the working directory (7) and desktop notifications (9, 777, 99).

Everything here is bounded and sanitised, since it is shown in the chrome
or sent on: a title or notification keeps no control or format character
(C0, C1, bidirectional overrides, zero-width joiners of nothing) and is cut
to a length; a working directory is a local absolute path.
"""

from __future__ import annotations

import re
import socket
import unicodedata
from urllib.parse import unquote, urlsplit

MAX_TITLE = 256
MAX_NOTE = 240
MAX_NOTES = 8
"""Notifications kept until the dashboard takes them (a flood keeps the newest)."""
MAX_PATH = 4096
_CONEMU = re.compile(r"\d{1,2}(;|$)")
_HOSTS: set[str] = set()


def clean_text(text: str, limit: int) -> str:
    """``text`` without control or format characters (dropped, as tmux drops
    them from a title) and with line/paragraph separators as spaces, cut to
    ``limit``."""
    if not text.isascii() or not text.isprintable():
        kept = []
        for ch in text:
            cat = unicodedata.category(ch)
            if cat in ("Zl", "Zp"):
                kept.append(" ")
            elif cat not in ("Cc", "Cf"):
                kept.append(ch)
        text = "".join(kept)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _local_hosts() -> set[str]:
    if not _HOSTS:
        name = socket.gethostname()
        _HOSTS.update({"", "localhost", name.lower(), name.split(".", 1)[0].lower()})
    return _HOSTS


def cwd_of(arg: str) -> str | None:
    """The directory an OSC 7 body names (``file://host/path``, percent-encoded;
    kitty's ``kitty-shell-cwd://`` too), or None: another host's, not absolute,
    too long or not a URL."""
    if len(arg) > 3 * MAX_PATH:
        return None
    try:
        url = urlsplit(arg)
    except ValueError:
        return None
    if url.scheme not in ("file", "kitty-shell-cwd"):
        return None
    # This host's names only (no DNS lookup: this runs on the UI's loop); a shell
    # on another machine (ssh) reports a directory that is not ours.
    if (url.hostname or "") not in _local_hosts():
        return None
    path = unquote(url.path, errors="strict") if url.scheme == "file" else url.path
    if not path.startswith("/") or len(path) > MAX_PATH or "\0" in path:
        return None
    if not path.isprintable():
        return None
    return path


Note = tuple[str, str]
"""(title, body) of a notification a program asked for ("" title: none given)."""


def note_of(code: str, arg: str, kitty: dict[str, list[str]]) -> Note | None:
    """The notification an OSC 9 / 777 / 99 body asks for, or None.

    * ``9;text`` (iTerm2, WezTerm, Ghostty, Windows Terminal); ``9;<n>;...``
      are ConEmu's sub-commands (progress, 9;4) and no notification.
    * ``777;notify;title;body`` (urxvt, foot, VTE).
    * ``99;metadata;payload`` (kitty's protocol): ``p=title`` or ``p=body``
      (title when not said), ``d=0`` while more chunks follow for the same
      ``i=`` id; ``e=1`` (base64 payloads) and other payload types are not
      shown. ``kitty`` holds the chunks of notifications still being sent."""
    if code == "9":
        if _CONEMU.match(arg):
            return None
        body = clean_text(arg, MAX_NOTE)
        return ("", body) if body else None
    if code == "777":
        kind, _, rest = arg.partition(";")
        if kind != "notify":
            return None
        title, _, body = rest.partition(";")
        title, body = clean_text(title, MAX_NOTE), clean_text(body, MAX_NOTE)
        return (title, body) if title or body else None
    if code == "99":
        return _kitty_note(arg, kitty)
    return None


def _kitty_note(arg: str, pending: dict[str, list[str]]) -> Note | None:
    meta, _, payload = arg.partition(";")
    fields = dict(part.partition("=")[::2] for part in meta.split(":") if part)
    if fields.get("e") == "1":
        return None
    kind = fields.get("p", "title")
    if kind not in ("title", "body"):
        return None  # icons, buttons, queries: not shown
    key = fields.get("i", "")[:64]
    parts = pending.setdefault(key, ["", ""]) if len(pending) < MAX_NOTES else ["", ""]
    slot = 0 if kind == "title" else 1
    if len(parts[slot]) < MAX_NOTE:
        parts[slot] += payload[:MAX_NOTE]
    if fields.get("d", "1") == "0":
        return None  # more to come
    pending.pop(key, None)
    title, body = clean_text(parts[0], MAX_NOTE), clean_text(parts[1], MAX_NOTE)
    return (title, body) if title or body else None
