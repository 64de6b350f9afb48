"""Estimated session cost from per-model list prices (USD per million tokens).

The figures are the vendors' public list prices as of the dates noted below, for
standard (non-batch) API use, and the result is an ESTIMATE: a subscription seat
pays nothing per token, long-context surcharges and 1-hour cache writes are not
modelled (cache writes are priced at the 5-minute rate), and prices change.

Sources:
- Anthropic, https://docs.anthropic.com/en/docs/about-claude/pricing (as of
  2025-11-24): Opus 4.5, Sonnet 4.5, Haiku 4.5, Opus 4.1, Opus 4, Sonnet 4,
  Sonnet 3.7, Haiku 3.5 (columns: base input, 5m cache writes, cache hits, output).
- OpenAI, https://platform.openai.com/docs/pricing (as of 2025-09-15): gpt-5 and
  gpt-5-codex (input, cached input, output; OpenAI has no cache-write charge).
- Anthropic's model pages, https://platform.claude.com/docs/en/models/opus-5/overview
  and …/opus-5-5/overview (as of 2026-12-07): Opus 5 $5 / $25, 5m cache write
  $6.25, cache read $0.50; Opus 5.5 $4 / $20, 5m cache write $5, cache read
  $0.20 (0.05x input, not the usual 0.1x). The same pages' comparison tables
  give Sonnet 5 and Sonnet 5.5 $2 / $10 and Fable 5 and Fable 5.1 $10 / $50;
  their cache figures are Anthropic's standard multipliers (1.25x and 0.1x the
  input price, which Opus 5's own figures follow).

- @anthropic-ai/claude-code 2.1.197, `bin/claude.exe`: the cost table its
  `/cost` command uses (module `aW`: table `Fje` keyed by the short ids of
  module `qM`, lookup `v4r`), per MTok input / output / 5m cache write / cache
  read: claude-3-5-haiku 0.8 / 4 / 1 / 0.08; claude-haiku-4-5 1 / 5 / 1.25 /
  0.1; claude-3-5-sonnet, claude-3-7-sonnet, claude-sonnet-4-0, -4-5, -4-6 and
  claude-sonnet-5 3 / 15 / 3.75 / 0.3; claude-opus-4-0 and -4-1 15 / 75 /
  18.75 / 1.5; claude-opus-4-5, -4-6, -4-7 and -4-8 5 / 25 / 6.25 / 0.5;
  claude-fable-5 and claude-mythos-5 10 / 50 / 12.5 / 1. Where the pages
  above also give a figure the two agree, except claude-sonnet-5 (the table: $3 / $15; the
  model pages: $2 / $10): the vendor's page is kept, so an estimate here can
  read lower than Claude Code's own `/cost`. The table's fast-mode rows
  (opus-4-6 / 4-7 $30 / $150, opus-4-8 $10 / $50) and 1-hour cache writes
  (2x input) are not modelled.

No price is listed for the other catalogue rungs (gpt-5.6-*, gemini-3.x, …, and
claude-haiku-5, whose page gives only a "from" price): their cost is None until
the operator sets one (`[pricing]`, see `merge_overrides`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from zirv_dash.context.models import normalise
from zirv_dash.context.reading import UsageTotals


@dataclass(frozen=True)
class Price:
    """USD per million tokens."""

    input: float
    output: float
    cache_write: float
    cache_read: float

    def cost(self, usage: UsageTotals) -> float:
        return (
            usage.input * self.input
            + usage.output * self.output
            + usage.cache_write * self.cache_write
            + usage.cache_read * self.cache_read
        ) / 1_000_000


def _anthropic(input: float, output: float) -> Price:
    # Anthropic's page: 5m cache writes are 1.25x base input, cache hits 0.1x.
    return Price(input, output, round(input * 1.25, 4), round(input * 0.1, 4))


PRICES: dict[str, Price] = {
    "claude-opus-4-5": _anthropic(5.0, 25.0),
    "claude-sonnet-4-5": _anthropic(3.0, 15.0),
    "claude-haiku-4-5": _anthropic(1.0, 5.0),
    "claude-opus-4-1": _anthropic(15.0, 75.0),
    "claude-opus-4": _anthropic(15.0, 75.0),
    "claude-sonnet-4": _anthropic(3.0, 15.0),
    "claude-3-7-sonnet": _anthropic(3.0, 15.0),
    "claude-3-5-haiku": Price(0.80, 4.0, 1.0, 0.08),
    # From claude-code 2.1.197's /cost table alone (see Sources).
    "claude-3-5-sonnet": _anthropic(3.0, 15.0),
    "claude-sonnet-4-0": _anthropic(3.0, 15.0),
    "claude-sonnet-4-6": _anthropic(3.0, 15.0),
    "claude-opus-4-0": _anthropic(15.0, 75.0),
    "claude-opus-4-6": _anthropic(5.0, 25.0),
    "claude-opus-4-7": _anthropic(5.0, 25.0),
    "claude-opus-4-8": _anthropic(5.0, 25.0),
    "claude-mythos-5": _anthropic(10.0, 50.0),
    "claude-opus-5": Price(5.0, 25.0, 6.25, 0.50),
    "claude-opus-5-5": Price(4.0, 20.0, 5.0, 0.20),
    "claude-sonnet-5": _anthropic(2.0, 10.0),
    "claude-sonnet-5-5": _anthropic(2.0, 10.0),
    "claude-fable-5": _anthropic(10.0, 50.0),
    "claude-fable-5-1": _anthropic(10.0, 50.0),
    "gpt-5": Price(1.25, 10.0, 1.25, 0.125),
    "gpt-5-codex": Price(1.25, 10.0, 1.25, 0.125),
}

FIELDS = ("input", "output", "cache_write", "cache_read")


class PricingError(ValueError):
    """An override that is not a price; the message names the key."""


def price_for(model: str | None, prices: Mapping[str, Price] | None = None) -> Price | None:
    """The price of `model` (exact id, then its normalised id), or None if unpriced."""
    if not model:
        return None
    table = PRICES if prices is None else prices
    return table.get(model.strip().lower()) or table.get(normalise(model))


def session_cost(
    usage: Mapping[str, UsageTotals], prices: Mapping[str, Price] | None = None
) -> float | None:
    """The estimated cost of every model's tokens; None if any used model is unpriced."""
    total = 0.0
    for model, tokens in usage.items():
        if tokens.total == 0:
            continue
        price = price_for(model, prices)
        if price is None:
            return None
        total += price.cost(tokens)
    return round(total, 6) if usage else None


def merge_overrides(overrides: Mapping[str, object]) -> dict[str, Price]:
    """The built-in table with the operator's overrides applied.

    `overrides` is the `[pricing]` settings section as a plain mapping: model id →
    {input, output, cache_write, cache_read} (USD per million tokens). A partial
    entry for a priced model keeps that model's other figures; a new model needs
    `input` and `output` (cache figures default to the input price and a tenth of
    it). Raises PricingError naming the bad key."""
    merged = dict(PRICES)
    for model, entry in overrides.items():
        key = str(model).strip().lower()
        if not isinstance(entry, Mapping):
            raise PricingError(f"pricing.{model}: expected a table of prices")
        figures = _figures(str(model), entry)
        base = merged.get(key)
        if base is None:
            if "input" not in figures or "output" not in figures:
                raise PricingError(f"pricing.{model}: a new model needs `input` and `output`")
            base = Price(
                figures["input"], figures["output"], figures["input"], figures["input"] / 10
            )
        merged[key] = Price(
            figures.get("input", base.input),
            figures.get("output", base.output),
            figures.get("cache_write", base.cache_write),
            figures.get("cache_read", base.cache_read),
        )
    return merged


def _figures(model: str, entry: Mapping[object, object]) -> dict[str, float]:
    figures: dict[str, float] = {}
    for name, value in entry.items():
        if name not in FIELDS:
            raise PricingError(f"pricing.{model}.{name}: unknown; use one of {', '.join(FIELDS)}")
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise PricingError(f"pricing.{model}.{name}: expected a non-negative number")
        figures[str(name)] = float(value)
    return figures
