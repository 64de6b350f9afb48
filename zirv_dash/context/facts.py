"""The running facts of one session, fed by a harness parser one record at a time.

Memory stays bounded however long the session runs: only the last `KEPT_TURNS`
turns are kept for the rot score, and usage is summed per model."""

from __future__ import annotations

import hashlib
import json
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from zirv_dash.context import models, pricing
from zirv_dash.context.reading import ContextReading, ToolCall, Turn, UsageTotals
from zirv_dash.context.stamps import parse_iso

KEPT_DAYS = 8
KEPT_TURNS = 256
"""Turns kept for scoring; the score's window (default 10) never reaches further."""


def digest(value: Any) -> str:
    """A short, stable hash of a tool call's input (dict key order does not matter)."""
    try:
        text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()[:16]


@dataclass
class _OpenTurn:
    calls: list[ToolCall] = field(default_factory=list)
    failures: list[bool] = field(default_factory=list)
    final_text: str | None = None

    def frozen(self) -> Turn:
        return Turn(tuple(self.calls), tuple(self.failures), self.final_text)


@dataclass
class SessionFacts:
    harness: str
    context_tokens: int | None = None
    window: int | None = None
    """A window the transcript itself stated (codex, qwen); beats `models.py`."""
    model: str | None = None
    turns: int = 0
    turns_since_compaction: int = 0
    compactions: int = 0
    session_tokens: int | None = None
    """Set directly by harnesses that record a session total (codex)."""
    usage: dict[str, UsageTotals] = field(default_factory=dict)
    field_name: str = ""
    """The field the token figures come from, for `ContextReading.source`."""
    by_day: dict[str, dict[str, UsageTotals]] = field(default_factory=dict)
    """Usage per local calendar day (`YYYY-MM-DD`) of the records' own timestamps,
    the last `KEPT_DAYS` days: the header's "today" figures."""
    day: str | None = None
    """The local day of the record being fed (None: the record had no timestamp)."""
    _kept: deque[Turn] = field(default_factory=lambda: deque(maxlen=KEPT_TURNS))
    _open: _OpenTurn | None = None

    # ---- what parsers call ------------------------------------------------------

    def user_turn(self) -> None:
        self._close_turn()
        self._open = _OpenTurn()
        self.turns += 1
        self.turns_since_compaction += 1

    def tool_call(self, name: str, arguments: Any) -> None:
        self._current().calls.append(ToolCall(str(name), digest(arguments)))

    def tool_result(self, failed: bool) -> None:
        self._current().failures.append(bool(failed))

    def assistant_text(self, text: str) -> None:
        if text.strip():
            self._current().final_text = text

    def compaction(self) -> None:
        """The harness compacted: behaviour before it no longer counts."""
        self._open = None
        self._kept.clear()
        self.turns_since_compaction = 0
        self.compactions += 1

    def add_usage(self, model: str | None, **tokens: int) -> None:
        self.usage.setdefault(model or "", UsageTotals()).add(**tokens)
        if self.day is not None:
            day = self.by_day.setdefault(self.day, {})
            day.setdefault(model or "", UsageTotals()).add(**tokens)
            while len(self.by_day) > KEPT_DAYS:
                del self.by_day[min(self.by_day)]

    def stamp(self, timestamp: object) -> None:
        """The record about to be fed was written at `timestamp` (ISO 8601 text, as
        every harness writes it); anything else leaves the day unknown."""
        self.day = local_day(timestamp)

    def set_model(self, model: object) -> None:
        if isinstance(model, str) and model.strip():
            self.model = model.strip()

    # ---- what readers and the score use -------------------------------------------

    def recent_turns(self) -> list[Turn]:
        """The kept turns since the last compaction, oldest first, the open one last."""
        turns = list(self._kept)
        if self._open is not None:
            turns.append(self._open.frozen())
        return turns

    def reading(
        self,
        source: str,
        malformed: int,
        prices: Mapping[str, pricing.Price] | None = None,
    ) -> ContextReading:
        window = self.window or models.window_for(self.model)
        tokens = self.context_tokens
        percent = round(100.0 * tokens / window, 1) if tokens is not None and window else None
        session = self.session_tokens
        if session is None and self.usage:
            session = sum(u.total for u in self.usage.values())
        where = f"{source} · {self.field_name}" if self.field_name else source
        todays = self.by_day.get(today(), {})
        return ContextReading(
            tokens=tokens,
            window=window,
            percent=percent,
            session_tokens=session,
            model=self.model,
            source=where,
            read_at=time.time(),
            malformed_lines=malformed,
            turns=self.turns,
            cost_usd=pricing.session_cost(self.usage, prices),
            today_tokens=sum(u.total for u in todays.values()) if todays else 0,
            today_cost_usd=pricing.session_cost(todays, prices) if todays else 0.0,
        )

    def _current(self) -> _OpenTurn:
        if self._open is None:
            # Activity before any prompt (a resumed file's tail): its own turn.
            self._open = _OpenTurn()
        return self._open

    def _close_turn(self) -> None:
        if self._open is not None:
            self._kept.append(self._open.frozen())
        self._open = None


def local_day(timestamp: object) -> str | None:
    """`2026-12-07` (the local date) of an ISO 8601 timestamp, None if it is not one."""
    moment = parse_iso(timestamp)
    if moment is None:
        return None
    if moment.tzinfo is None:
        return moment.date().isoformat()
    return moment.astimezone().date().isoformat()


def today() -> str:
    return datetime.now().astimezone().date().isoformat()


def as_int(value: object) -> int:
    """A token count from JSON: ints (not bools) only, anything else is 0."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return max(0, int(value))


def as_dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
