"""A live transcript reader: the harness's own file, read incrementally into a ContextReading."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from zirv_dash.context import detect, pricing
from zirv_dash.context.claude import ClaudeParser
from zirv_dash.context.codex import CodexParser
from zirv_dash.context.facts import SessionFacts
from zirv_dash.context.gemini import GeminiParser
from zirv_dash.context.qwen import QwenParser
from zirv_dash.context.reading import ContextReading, Turn
from zirv_dash.context.tail import CHUNK_BYTES, JsonlTail


class Parser(Protocol):
    def feed(self, obj: dict[str, Any]) -> None: ...


PARSERS: dict[str, Callable[[SessionFacts], Parser]] = {
    "claude": ClaudeParser,
    "codex": CodexParser,
    "gemini": GeminiParser,
    "qwen": QwenParser,
}


class TranscriptReader:
    """Reads one transcript as it grows; each `read()` parses one bounded chunk.

    With `harness=None` the harness is detected from the first records; records
    read before it is known are kept (bounded by one chunk) and fed once it is."""

    def __init__(
        self,
        path: Path,
        harness: str | None = None,
        *,
        chunk_bytes: int = CHUNK_BYTES,
        prices: Mapping[str, pricing.Price] | None = None,
    ) -> None:
        if harness is not None and harness not in PARSERS:
            raise ValueError(f"no transcript reader for {harness!r}; known: {', '.join(PARSERS)}")
        self.path = path
        self.tail = JsonlTail(path, chunk_bytes=chunk_bytes)
        self.prices = prices
        self.harness = harness
        self.facts = SessionFacts(harness or "unknown")
        self._parser: Parser | None = PARSERS[harness](self.facts) if harness else None
        self._pending: list[dict[str, Any]] = []

    def read(self) -> ContextReading | None:
        """Parse what was appended since the last call (at most one chunk) and return
        the reading; None while the harness is unknown. Raises OSError if unreadable."""
        objects = self.tail.read()
        if self._parser is None:
            self._pending.extend(objects)
            found = detect.detect(self._pending)
            if found is None:
                self._pending = self._pending[-64:]  # bounded until something says
                return None
            self._start(found)
            objects, self._pending = self._pending, []
        assert self._parser is not None
        for obj in objects:
            self.facts.stamp(obj.get("timestamp"))
            self._parser.feed(obj)
        return self.reading()

    def catch_up(self, max_bytes: int | None = None) -> ContextReading | None:
        """Read until the end of the file (or `max_bytes` more), for a one-shot look."""
        start = self.tail.offset
        reading = self.read()
        while not self.tail.at_end():
            if max_bytes is not None and self.tail.offset - start >= max_bytes:
                break
            reading = self.read()
        return reading

    def reading(self) -> ContextReading | None:
        if self._parser is None:
            return None
        return self.facts.reading(str(self.path), self.tail.malformed, self.prices)

    def turns(self) -> list[Turn]:
        """The turns since the last compaction, for the rot score."""
        return self.facts.recent_turns()

    def _start(self, harness: str) -> None:
        self.harness = harness
        self.facts.harness = harness
        self._parser = PARSERS[harness](self.facts)
