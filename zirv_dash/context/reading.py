"""What one read of a conversation says: the context reading and the per-turn activity."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ContextReading:
    """How full one agent's context is, read from the harness's own files.

    Every figure is what the harness recorded, never an estimate of ours; a figure
    it did not record is None (the UI shows `–`)."""

    tokens: int | None
    """Current context size: the last turn's whole prompt (claude: input + cache
    read + cache creation; codex: `last_token_usage.total_tokens`)."""
    window: int | None
    """The model's real context window, from the transcript or `models.py`."""
    percent: float | None
    """`tokens / window` in percent, None when either is unknown."""
    session_tokens: int | None
    """Tokens this session processed, all turns and categories together."""
    model: str | None
    source: str
    """Which file and which field the figures came from."""
    read_at: float
    """`time.time()` of the read, for the reading's age."""
    malformed_lines: int
    turns: int
    """Turns (user prompts) seen in the whole session, compactions included."""
    cost_usd: float | None
    """Estimated cost at list prices (`pricing.py`); None for an unpriced model."""
    today_tokens: int = 0
    """Tokens of records stamped today (local time)."""
    today_cost_usd: float | None = 0.0
    """Their estimated cost; None when a model used today is unpriced."""


@dataclass(frozen=True)
class ToolCall:
    name: str
    digest: str
    """A short hash of the call's input: equal inputs give equal digests."""


@dataclass(frozen=True)
class Turn:
    """One user turn's activity, as the rot score reads it."""

    calls: tuple[ToolCall, ...] = ()
    failures: tuple[bool, ...] = ()
    """One entry per tool result: True when it failed."""
    final_text: str | None = None
    """The turn's last assistant text (the reply-marker signal reads it)."""


@dataclass
class UsageTotals:
    """Tokens of one model over the session, by how they are billed."""

    input: int = 0
    """Uncached input."""
    cache_write: int = 0
    cache_read: int = 0
    output: int = 0

    def add(
        self, input: int = 0, cache_write: int = 0, cache_read: int = 0, output: int = 0
    ) -> None:
        self.input += max(0, input)
        self.cache_write += max(0, cache_write)
        self.cache_read += max(0, cache_read)
        self.output += max(0, output)

    @property
    def total(self) -> int:
        return self.input + self.cache_write + self.cache_read + self.output
