"""OSC 8 hyperlinks: what a cell links to, bounded per pane.

``ESC ] 8 ; params ; URI ST`` starts a hyperlink (``params`` are ``key=value``
pairs split by ``:``, of which only ``id`` means anything, as in kitty and
WezTerm); an empty URI ends it. Every cell drawn in between carries the link
in its :class:`Attr` (``Attr.link``), the way it carries its colours: SGR
resets leave it alone, erased cells lose it.

Bounds, so a hostile stream cannot grow a pane without limit: a URI longer
than ``MAX_URI`` bytes, or one holding anything but printable ASCII (a URI
is percent-encoded; anything else could end the sequence early when it is
sent on to the outer terminal), is dropped -- the text after it is drawn
unlinked. A pane holds at most ``MAX_LINKS`` distinct live links: a
``Link`` lives while a cell (or a cache) refers to it, so links that
scrolled out of the scrollback free their places, and past the cap new
links are dropped until some do.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable

MAX_URI = 2048
MAX_ID = 256
MAX_LINKS = 4096
_PRINTABLE = re.compile(r"[\x21-\x7e]+").fullmatch
_ID_CHARS = re.compile(r"[\x21-\x7e]*").fullmatch


class Link:
    """One hyperlink: its ``id`` ("" when the program gave none) and URI.

    Compared by identity: one pane's table hands out one object per
    (id, URI), so equal links are the same object and a cell costs a reference."""

    __slots__ = ("__weakref__", "id", "uri")

    def __init__(self, link_id: str, uri: str) -> None:
        self.id = link_id
        self.uri = uri

    def __repr__(self) -> str:
        return f"Link({self.id!r}, {self.uri!r})"

    @property
    def scheme(self) -> str:
        head, sep, _ = self.uri.partition(":")
        return head.lower() if sep else ""

    def osc(self) -> str:
        """The OSC 8 sequence that starts this link at the glass."""
        params = f"id={self.id}" if self.id else ""
        return f"\x1b]8;{params};{self.uri}\x1b\\"


LINK_END = "\x1b]8;;\x1b\\"


class LinkTable:
    """The distinct live links of one pane."""

    def __init__(self, forget: Callable[[], None], limit: int = MAX_LINKS) -> None:
        """``forget``: starts the shared caches of renditions again (``attr.forget_renditions``)."""
        self._live: weakref.WeakValueDictionary[tuple[str, str], Link] = (
            weakref.WeakValueDictionary()
        )
        self._limit = limit
        self._forget = forget
        self._added = 0
        self._added_at_last_try = -1
        self.dropped = 0
        """Links refused (too long, not ASCII, or past the cap): for tests and the inspector."""

    def __len__(self) -> int:
        return len(self._live)

    def parse(self, arg: str) -> Link | None:
        """The link an OSC 8 body after ``8;`` starts (None: it ends one, or is dropped)."""
        params, sep, uri = arg.partition(";")
        if not sep or not uri:
            return None
        if len(uri) > MAX_URI or not _PRINTABLE(uri):
            self.dropped += 1
            return None
        link_id = ""
        for pair in params.split(":"):
            name, _, value = pair.partition("=")
            if name == "id":
                link_id = value
        if len(link_id) > MAX_ID or not _ID_CHARS(link_id) or ";" in link_id:
            link_id = ""
        key = (link_id, uri)
        got = self._live.get(key)
        if got is None:
            if len(self._live) >= self._limit and not self._make_room():
                self.dropped += 1
                return None
            got = self._live[key] = Link(link_id, uri)
            self._added += 1
        return got

    def _make_room(self) -> bool:
        """Whether places are free once the shared caches of renditions (which
        keep links alive that no cell holds) start again -- tried once per
        link accepted since the last try, so a flood of refused links does
        not clear them again and again."""
        if self._added == self._added_at_last_try:
            return False
        self._added_at_last_try = self._added
        self._forget()
        return len(self._live) < self._limit
