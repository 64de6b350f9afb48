"""One pane's context health as the dashboard shows it: the reading, its rot score, and why not.

`PaneHealth` is what the sidebar glyph, the inspector, the header totals and
`zirv ctx status --json` are all made from, so each says the same thing. A
figure the harness does not record stays None and is shown as `–`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from zirv_dash.context.reading import ContextReading
from zirv_dash.context.score import RotScore

FILL_GLYPHS = "▁▂▃▄▅▆▇█"
"""The sidebar's fill glyph, one step per eighth of the window."""
ADVISE_MARK = "⚠"
"""A verdict of `advise` or worse on the row."""


@dataclass(frozen=True)
class PaneHealth:
    harness: str
    reading: ContextReading | None = None
    score: RotScore | None = None
    status: str = "reading"
    """`ok` (a reading), `reading` (its file not found or not read yet),
    `unsupported` (the harness records nothing we can read), or an error text."""
    behind: bool = False
    """The file holds more than has been read (a long transcript catching up)."""

    @property
    def verdict(self) -> str | None:
        return self.score.verdict if self.score is not None else None

    @property
    def percent(self) -> float | None:
        return self.reading.percent if self.reading is not None else None

    def fill_glyph(self) -> str:
        """`▃` for a 40 % full window; `·` while the fill is unknown."""
        percent = self.percent
        if percent is None:
            return "·"
        step = min(len(FILL_GLYPHS) - 1, max(0, int(percent / 100 * len(FILL_GLYPHS))))
        return FILL_GLYPHS[step]

    def row_mark(self) -> str:
        """What the sidebar row shows: the fill glyph, with ⚠ once a verdict advises."""
        if self.status == "unsupported":
            return ""
        mark = self.fill_glyph()
        if self.verdict not in (None, "healthy"):
            mark += ADVISE_MARK
        return mark

    def to_json(self, now: float | None = None) -> dict[str, Any] | None:
        """`zirv ctx status --json`'s `context`: None when nothing was read (never a guess)."""
        reading = self.reading
        if reading is None:
            return None
        now = time.time() if now is None else now
        return {
            "tokens": reading.tokens,
            "window": reading.window,
            "percent": reading.percent,
            "source": reading.source,
            "age_s": max(0, round(now - reading.read_at)),
            "verdict": self.verdict,
            "score": self.score.score if self.score is not None else None,
            "cost_usd": reading.cost_usd,
            "cost_is_estimate": True,
            "session_tokens": reading.session_tokens,
            "model": reading.model,
            "turns": reading.turns,
            "malformed_lines": reading.malformed_lines,
            "read_at": reading.read_at,
        }


def tokens_text(tokens: int | None) -> str:
    """`12.3k`, `1.2M`; `–` when unknown."""
    if tokens is None:
        return "–"
    if tokens >= 1_000_000:
        return f"{tokens / 1_000_000:.1f}M"
    if tokens >= 1_000:
        return f"{tokens / 1_000:.1f}k"
    return str(tokens)


def cost_text(cost: float | None) -> str:
    """`~$1.23 (estimate)`-style figure without the word; `–` when unpriced."""
    if cost is None:
        return "–"
    return f"~${cost:.2f}" if cost >= 0.01 else "~$0.00"


def fill_bar(percent: float | None, width: int = 10) -> str:
    """`███▌······ 35%` for the inspector; `–` when unknown."""
    if percent is None:
        return "–"
    eighths = round(max(0.0, min(100.0, percent)) / 100 * width * 8)
    full, part = divmod(eighths, 8)
    bar = "█" * full + ("▏▎▍▌▋▊▉"[part - 1] if part else "")
    return f"{bar:·<{width}} {percent:.0f}%"


SIGNAL_WORDS = {"tool_failure": "failures", "repetition": "repeats", "marker_miss": "marker"}
"""The inspector's key column is 12 cells: each signal by a word that fits."""


def _source_rows(source: str) -> list[tuple[str, str]]:
    """`file` and `field` of a reading's source (`<path> · <field>`)."""
    path, _, field = source.partition(" · ")
    return [("file", path), ("field", field)] if field else [("file", path)]


def inspector_rows(health: PaneHealth | None, ages: bool = True) -> list[tuple[str, str]]:
    """The inspector's `context` section: every figure with its source and age."""
    if health is None:
        return [("context", "–")]
    if health.status == "unsupported":
        return [("context", f"– ({health.harness} records no usage we can read)")]
    reading = health.reading
    if reading is None:
        return [
            (
                "context",
                "– (no transcript found yet)"
                if health.status == "reading"
                else f"– ({health.status})",
            )
        ]
    age = f"{max(0, round(time.time() - reading.read_at))}s ago" if ages else "–"
    rows = [
        ("fill", fill_bar(reading.percent)),
        ("tokens", f"{tokens_text(reading.tokens)} of {tokens_text(reading.window)}"),
        ("session", f"{tokens_text(reading.session_tokens)} tokens · {reading.turns} turns"),
        ("cost", f"{cost_text(reading.cost_usd)} (estimate at list prices)"),
        ("model", reading.model or "–"),
        *_source_rows(reading.source),
        ("read", age + (" · catching up" if health.behind else "")),
    ]
    if reading.malformed_lines:
        rows.append(("malformed", f"{reading.malformed_lines} lines skipped"))
    score = health.score
    if score is not None:
        rows.append(("verdict", f"{score.verdict} (rot score {score.score})"))
        for signal in score.signals:
            if signal.name == "context_size":
                continue
            value = "–" if signal.value is None else f"{signal.value:g}"
            name = SIGNAL_WORDS.get(signal.name, signal.name)
            rows.append((name, f"{value} → {signal.points:g} points"))
        rows.append(
            ("gates", f"floor {tokens_text(score.floor)} · ceiling {tokens_text(score.ceiling)}")
        )
    return rows
