"""End to end in tmux: a harness stops on its usage-limit notice and its pane falls back.

The pane runs a stand-in for Claude Code (tests/fixtures/fake_claude.py, on
PATH as `claude`) that prints claude-code 2.1.197's own words for a spent
5-hour window when asked; `[fallback] order` names the next harness.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.tmuxharness import ZIRV, Tmux, eventually

pytestmark = [pytest.mark.tmux, pytest.mark.timeout(120)]

FAKE = Path(__file__).parent / "fixtures" / "fake_claude.py"


def setup_fake(tmux: Tmux, tmp_path: Path, order: list[str]) -> Path:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shim = bindir / "claude"
    shim.write_text(f'#!/bin/sh\nexec {sys.executable} {FAKE} "$@"\n')
    shim.chmod(0o755)
    tmux.env["PATH"] = f"{bindir}{os.pathsep}{tmux.env['PATH']}"
    tmux.env["FAKE_CLAUDE_LIMIT"] = "limit please"
    operator = Path(tmux.env["ZIRV_HOME"])
    operator.mkdir(parents=True, exist_ok=True)
    names = ", ".join(f'"{n}"' for n in order)
    (operator / "ctx.toml").write_text(f"[fallback]\norder = [{names}]\n")
    return Path(tmux.env["ZIRV_CTX_STATE_DIR"])


def decisions(state: Path) -> list[dict[str, object]]:
    path = state / "logs" / "decisions.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def kinds(state: Path) -> list[object]:
    return [d["kind"] for d in decisions(state)]


def hit_the_limit(tmux: Tmux) -> None:
    """Open the dashboard on the stand-in and make it stop on its limit notice."""
    tmux.start([*ZIRV, "chat", "--agent", "claude"], 120, 40)
    tmux.wait_dashboard()
    tmux.wait_for("? for shortcuts")
    tmux.text("limit please")
    tmux.keys("Enter")
    tmux.wait_for("You've hit your session limit")


def test_a_pane_stopped_on_its_limit_is_handed_to_the_next_harness(
    tmux: Tmux, tmp_path: Path
) -> None:
    state = setup_fake(tmux, tmp_path, ["claude", "demo"])
    hit_the_limit(tmux)
    eventually(lambda: "fallback" in kinds(state), "the fallback decision", timeout=40)
    assert kinds(state)[:2] == ["usage-limit", "fallback"]
    fell = next(d for d in decisions(state) if d["kind"] == "fallback")
    assert fell["to"] == "demo" and fell["harness"] == "claude"
    breaker = json.loads((state / "usage" / "breaker-anthropic.json").read_text())
    assert breaker["window"] == "five_hour" and breaker["harness"] == "claude"
    # The successor is the demo agent, in the same pane, given the handoff packet
    # (its recent screen shows where claude stopped) as its first prompt.
    screen = tmux.wait_for("(demo: nothing was changed)", timeout=30)
    assert "## Recent terminal output" in screen
    assert "You've hit your session limit" in screen
    tmux.quit("EXITED 0")
    assert not tmux.pids_running(str(FAKE).encode())


def test_with_nowhere_to_go_the_original_keeps_running(tmux: Tmux, tmp_path: Path) -> None:
    # gemini is not on this PATH: not ready, so there is no harness to fall back to.
    state = setup_fake(tmux, tmp_path, ["claude", "gemini"])
    tmux.env["PATH"] = os.pathsep.join(
        p for p in tmux.env["PATH"].split(os.pathsep) if not (Path(p) / "gemini").exists()
    )
    hit_the_limit(tmux)
    eventually(lambda: "fallback-refused" in kinds(state), "the refusal", timeout=40)
    refused = next(d for d in decisions(state) if d["kind"] == "fallback-refused")
    assert "no fallback" in str(refused["detail"])
    # The original pane still runs and still answers.
    tmux.text("hello again")
    tmux.keys("Enter")
    tmux.wait_for("done 1")
    assert tmux.pids_running(str(FAKE).encode())
    tmux.quit("EXITED 0")
    assert not tmux.pids_running(str(FAKE).encode())
