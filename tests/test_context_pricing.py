"""Cited windows and list prices, and the operator's price overrides."""

from __future__ import annotations

import pytest

from zirv_dash.context import models, pricing
from zirv_dash.context.reading import UsageTotals


def test_windows_for_cited_models_only() -> None:
    assert models.window_for("claude-sonnet-4-5-20250929") == 200_000
    assert models.window_for("claude-opus-4-8") == 1_000_000
    assert models.window_for("claude-opus-4-6[1m]") == 1_000_000
    assert models.window_for("us.anthropic.claude-sonnet-4-5-20250929-v1:0") == 200_000
    assert models.window_for("gemini-2.5-pro") == 1_048_576
    assert models.window_for("claude-opus-5") is None  # not in claude-code's table
    assert models.window_for("gpt-5.6-sol") is None
    assert models.window_for(None) is None


def test_prices_and_unknown_models() -> None:
    assert pricing.price_for("claude-sonnet-4-5-20250929") == pricing.PRICES["claude-sonnet-4-5"]
    assert pricing.price_for("claude-opus-4-8") == pricing.Price(5.0, 25.0, 6.25, 0.5)
    assert pricing.price_for("claude-opus-4-9") is None  # no opus-4 fallthrough
    usage = {"claude-haiku-4-5": UsageTotals(1_000_000, 0, 0, 1_000_000)}
    assert pricing.session_cost(usage) == pytest.approx(6.0)
    usage["mystery-model"] = UsageTotals(1, 0, 0, 0)
    assert pricing.session_cost(usage) is None
    assert pricing.session_cost({}) is None


def test_overrides_merge() -> None:
    merged = pricing.merge_overrides(
        {"gpt-5.6-sol": {"input": 5, "output": 25}, "gpt-5": {"output": 12}}
    )
    # A new model: cache writes at the input price, cache reads a tenth of it.
    assert merged["gpt-5.6-sol"] == pricing.Price(5.0, 25.0, 5.0, 0.5)
    assert merged["gpt-5"].output == 12.0 and merged["gpt-5"].input == 1.25
    assert "gpt-5.6-sol" not in pricing.PRICES  # the built-in table is untouched
    assert pricing.PRICES["gpt-5"].output == 10.0


def test_the_newer_anthropic_models_have_their_cited_prices() -> None:
    assert pricing.price_for("claude-opus-5[1m]") == pricing.Price(5.0, 25.0, 6.25, 0.5)
    assert pricing.price_for("claude-opus-5-5") == pricing.Price(4.0, 20.0, 5.0, 0.2)
    assert pricing.price_for("claude-haiku-5") is None  # only a "from" price: no guess
    for bad in ({"m": {"input": 1}}, {"m": 3}, {"gpt-5": {"speed": 1}}, {"gpt-5": {"input": -1}}):
        with pytest.raises(pricing.PricingError):
            pricing.merge_overrides(bad)
