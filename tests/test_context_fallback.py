"""The fallback policy: headroom, the `fallback:` status lines, steering, the next harness."""

from __future__ import annotations

import pytest

from zirv_dash.context import fallback
from zirv_dash.context.fallback import FallbackPolicy, HarnessFacts, Headroom
from zirv_dash.context.window import FIVE_HOUR, SEVEN_DAY, UsageWindow, unknown

VENDORS = {"claude": "anthropic", "codex": "openai", "gemini": "google", "qwen": "qwen"}
READY = [
    HarnessFacts("claude", True, True),
    HarnessFacts("codex", True, True),
    HarnessFacts("gemini", True, True),
]


def used(vendor: str, five: float | None, seven: float | None = None) -> list[UsageWindow]:
    out = []
    for window, percent in ((FIVE_HOUR, five), (SEVEN_DAY, seven)):
        if percent is None:
            out.append(unknown(vendor, window))
        else:
            out.append(UsageWindow(vendor, window, percent, None, "collector", 0.0))
    return out


def test_headroom_is_measured_assumed_or_opted_out() -> None:
    assert fallback.headroom(used("anthropic", 38.0, 12.0), 25.0) == Headroom(62.0, "measured")
    assert fallback.headroom(used("anthropic", None, 80.0), 25.0) == Headroom(20.0, "measured")
    assert fallback.headroom(used("anthropic", 130.0), 25.0) == Headroom(0.0, "measured")
    assert fallback.headroom(used("anthropic", None), 25.0) == Headroom(25.0, "assumed")
    assert fallback.headroom([], 0.0) == Headroom(None, "opted-out")
    assert Headroom(None, "opted-out").text() == "– opted-out"


def test_status_lines_are_upstreams() -> None:
    policy = FallbackPolicy()
    harnesses = [HarnessFacts("claude", True, True), HarnessFacts("codex", True, True, True)]
    windows = used("anthropic", 38.0, 20.0) + used("openai", None)
    assert fallback.status_lines(policy, harnesses, windows, VENDORS) == [
        "fallback: enabled | order claude -> codex | steer below 20% headroom | candidate min 10%"
        " | unknown assumes 25%",
        "fallback claude: enabled / ready / full / 62% measured",
        "fallback codex: enabled / ready / small-only / 25% assumed",
    ]


def test_status_lines_disabled_unknown_and_opted_out() -> None:
    policy = FallbackPolicy(
        enabled=False,
        order=["codex", "aider"],
        predictive_headroom_pct=12.5,
        min_candidate_headroom_pct=5,
        unknown_headroom_pct=0,
    )
    lines = fallback.status_lines(policy, [HarnessFacts("codex", False, True)], [], VENDORS)
    assert lines == [
        "fallback: disabled | order codex -> aider | steer below 12.5% headroom"
        " | candidate min 5% | unknown opts out",
        "fallback codex: disabled / ready / full / – opted-out",
        "fallback aider: disabled / unavailable / full / – opted-out",
    ]


@pytest.mark.parametrize(
    ("claude", "codex", "facts", "expected"),
    [
        (50.0, 90.0, READY, "claude"),  # 50% headroom: stays
        (81.0, 30.0, READY, "codex"),  # 19% < 20%, codex 70% -> moves
        (90.0, 30.0, READY, "codex"),
        (90.0, 95.0, READY, "claude"),  # codex 5% is below the candidate minimum
        (90.0, None, READY, "codex"),  # codex assumed 25%
        (
            100.0,
            30.0,
            [HarnessFacts("claude", True, True), HarnessFacts("codex", False, True)],
            "claude",
        ),  # codex disabled
        (
            100.0,
            30.0,
            [HarnessFacts("claude", True, True), HarnessFacts("codex", True, False)],
            "claude",
        ),  # codex not ready
        (None, 0.0, READY, "claude"),  # no reading: assumed 25%, above the threshold
    ],
)
def test_steering_table(
    claude: float | None, codex: float | None, facts: list[HarnessFacts], expected: str
) -> None:
    windows = used("anthropic", claude) + used("openai", codex)
    steering = fallback.steer("claude", FallbackPolicy(), facts, windows, VENDORS)
    assert steering.harness == expected
    assert steering.moved == (expected != "claude")


def test_steering_says_why() -> None:
    windows = used("anthropic", 92.0, 40.0) + used("openai", 30.0)
    steering = fallback.steer("claude", FallbackPolicy(), READY, windows, VENDORS)
    assert steering.harness == "codex"
    assert steering.reason == (
        "claude has 8% measured headroom, below the 20% steer threshold; codex has 70% measured"
    )


def test_steering_leaves_alone_what_the_policy_does_not_cover() -> None:
    windows = used("anthropic", 99.0) + used("openai", 0.0)
    off = FallbackPolicy(enabled=False)
    assert fallback.steer("claude", off, READY, windows, VENDORS).harness == "claude"
    assert fallback.steer("gemini", FallbackPolicy(), READY, windows, VENDORS).harness == "gemini"
    opted = FallbackPolicy(unknown_headroom_pct=0)
    assert fallback.steer("codex", opted, READY, used("anthropic", 1.0), VENDORS).harness == "codex"


def test_steering_never_moves_to_the_same_vendor() -> None:
    vendors = {**VENDORS, "claude-alt": "anthropic"}
    policy = FallbackPolicy(order=["claude", "claude-alt"])
    facts = [HarnessFacts("claude", True, True), HarnessFacts("claude-alt", True, True)]
    steering = fallback.steer("claude", policy, facts, used("anthropic", 95.0), vendors)
    assert steering.harness == "claude"


def test_next_harness_for_a_pane_stopped_on_its_limit() -> None:
    policy = FallbackPolicy(order=["claude", "codex", "gemini"])
    full = used("anthropic", 100.0)
    assert fallback.next_harness("claude", policy, READY, full + used("openai", 50.0)) == "codex"
    # codex exhausted too: on to gemini (assumed headroom)
    assert fallback.next_harness("claude", policy, READY, full + used("openai", 95.0)) == "gemini"
    # from codex the order goes on, then wraps round to the start
    assert fallback.next_harness("codex", policy, READY, used("openai", 100.0)) == "gemini"
    only = [HarnessFacts("claude", True, True), HarnessFacts("codex", True, True)]
    assert fallback.next_harness("codex", policy, only, used("openai", 100.0)) == "claude"
    assert fallback.next_harness("claude", FallbackPolicy(enabled=False), READY, full) is None
    nothing = [HarnessFacts("claude", True, True), HarnessFacts("codex", True, False)]
    assert fallback.next_harness("claude", policy, nothing, full) is None


def test_next_harness_without_a_reading_and_opted_out_finds_none() -> None:
    policy = FallbackPolicy(unknown_headroom_pct=0)
    assert fallback.next_harness("claude", policy, READY, used("anthropic", 100.0)) is None
