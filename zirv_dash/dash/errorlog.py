"""The sticky error buffer behind `Ctrl+A e`: newest first, repeats counted."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

log = logging.getLogger("zirv.dashboard")

ERROR_LOG_MAX = 5


@dataclass
class ErrorEntry:
    text: str
    count: int = 1
    at: float = field(default_factory=time.time)
    acked: bool = False


class ErrorLog:
    """The sticky error buffer: newest first, at most 5, repeats counted (×N)."""

    def __init__(self) -> None:
        self.entries: list[ErrorEntry] = []

    def add(self, text: str) -> None:
        log.warning("%s", text)
        if self.entries and not self.entries[0].acked and self.entries[0].text == text:
            self.entries[0].count += 1
            self.entries[0].at = time.time()
            return
        self.entries.insert(0, ErrorEntry(text))
        del self.entries[ERROR_LOG_MAX:]

    @property
    def unacked(self) -> list[ErrorEntry]:
        return [e for e in self.entries if not e.acked]

    def ack_all(self) -> None:
        for entry in self.entries:
            entry.acked = True
