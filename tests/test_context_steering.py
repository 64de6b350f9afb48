"""New work steered off an exhausted harness: validation moves the request, the receipt says why."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from zirv_dash import spawn
from zirv_dash.config.layers import AdapterGate, load_settings
from zirv_dash.context import decisions, limits
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.intake.launching import validation_context
from zirv_dash.spawn.protocol import SpawnRequest


def dashboard(repo: Path, **fallback: object) -> Dashboard:
    flags = {"fallback": {"order": ["claude", "demo"], **fallback}}
    return Dashboard(load_settings(repo, flags=flags), repo, AdapterGate(), manage_state=False)


def request(repo: Path, **fields: object) -> SpawnRequest:
    return SpawnRequest(agent="claude", prompt="fix it", cwd=str(repo), requested_by="x", **fields)


def trip_claude() -> None:
    notice = limits.LimitNotice(
        "claude", "anthropic", "You've hit your session limit", time.time() + 3600, "five_hour"
    )
    limits.trip(notice, time.time())


def test_a_request_for_an_exhausted_harness_goes_to_the_next_one(tmp_path: Path) -> None:
    trip_claude()
    decision = spawn.validate(request(tmp_path), validation_context(dashboard(tmp_path), None))
    assert decision.ok and decision.request is not None
    assert decision.request.agent == "demo"
    (warning,) = decision.ack("abcd1234").capability_warnings
    assert warning["capability"] == "fallback"
    assert "steered from claude to demo" in warning["detail"] and "0%" in warning["detail"]
    assert [d["kind"] for d in decisions.read()] == ["steer"]


def test_with_headroom_or_force_or_fallback_off_it_stays(tmp_path: Path) -> None:
    ctx = validation_context(dashboard(tmp_path), None)
    assert spawn.validate(request(tmp_path), ctx).request.agent == "claude"  # type: ignore[union-attr]
    trip_claude()
    forced = spawn.validate(
        request(tmp_path, force=True),
        validation_context(dashboard(tmp_path), None, file_drop=False),
    )
    assert forced.request is not None and forced.request.agent == "claude"
    off = validation_context(dashboard(tmp_path, enabled=False), None)
    assert spawn.validate(request(tmp_path), off).request.agent == "claude"  # type: ignore[union-attr]


def test_a_pinned_model_without_a_tier_is_never_translated(tmp_path: Path) -> None:
    trip_claude()
    pinned = request(tmp_path, model="claude-some-private-build")
    decision = spawn.validate(pinned, validation_context(dashboard(tmp_path), None))
    assert decision.request is not None and decision.request.agent == "claude"
    assert not decision.warnings


@pytest.mark.parametrize("tier", ["deep", "claude-opus-5"])
def test_a_tier_goes_with_the_request(tmp_path: Path, tier: str) -> None:
    trip_claude()
    decision = spawn.validate(
        request(tmp_path, model=tier), validation_context(dashboard(tmp_path), None)
    )
    assert decision.request is not None and decision.request.agent == "demo"
    assert decision.request.model in ("deep", "demo-deep")
