"""Prices taken from Claude Code's own /cost table (@anthropic-ai/claude-code 2.1.197)."""

from __future__ import annotations

import pytest

from zirv_dash.context import pricing
from zirv_dash.context.reading import UsageTotals

# `bin/claude.exe`, module `aW`, table `Fje`: input, output, 5m cache write, cache read.
PACKAGE_TABLE = {
    "claude-3-5-haiku": (0.8, 4.0, 1.0, 0.08),
    "claude-haiku-4-5": (1.0, 5.0, 1.25, 0.1),
    "claude-3-5-sonnet": (3.0, 15.0, 3.75, 0.3),
    "claude-3-7-sonnet": (3.0, 15.0, 3.75, 0.3),
    "claude-sonnet-4-0": (3.0, 15.0, 3.75, 0.3),
    "claude-sonnet-4-5": (3.0, 15.0, 3.75, 0.3),
    "claude-sonnet-4-6": (3.0, 15.0, 3.75, 0.3),
    "claude-opus-4-0": (15.0, 75.0, 18.75, 1.5),
    "claude-opus-4-1": (15.0, 75.0, 18.75, 1.5),
    "claude-opus-4-5": (5.0, 25.0, 6.25, 0.5),
    "claude-opus-4-6": (5.0, 25.0, 6.25, 0.5),
    "claude-opus-4-7": (5.0, 25.0, 6.25, 0.5),
    "claude-fable-5": (10.0, 50.0, 12.5, 1.0),
    "claude-mythos-5": (10.0, 50.0, 12.5, 1.0),
}


@pytest.mark.parametrize("model", sorted(PACKAGE_TABLE))
def test_the_table_agrees_with_claude_codes_cost_table(model: str) -> None:
    assert pricing.price_for(model) == pricing.Price(*PACKAGE_TABLE[model])


def test_a_dated_id_costs_what_its_table_row_says() -> None:
    # 1M fresh in, 1M out, 1M cache write, 1M cache read at claude-sonnet-4-6's row.
    usage = {"claude-sonnet-4-6-20260101": UsageTotals(1_000_000, 1_000_000, 1_000_000, 1_000_000)}
    assert pricing.session_cost(usage) == pytest.approx(3.0 + 3.75 + 0.3 + 15.0)
