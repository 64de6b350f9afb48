"""`zirv --help` harness list, `zirv models [HARNESS]`, and tier names resolving in
`zirv agent` (its `--json` receipt names the resolved model)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from zirv_dash.harnesses import adapters, catalogue

pytestmark = pytest.mark.timeout(60)


def zirv(
    args: list[str], cwd: Path, stdin: str = "", path: str | None = None, **extra: str
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZIRV_CTX_HANDOVER_")}
    env.update(SHELL="/bin/sh", ZIRV_DEMO_WORK_SECS="0", ZIRV_DEMO_SPINNER="0", **extra)
    if path is not None:
        env["PATH"] = path
    return subprocess.run(
        [sys.executable, "-m", "zirv_dash.cli.main", *args],
        cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=30,
    )  # fmt: skip


def fake_cli(bindir: Path, name: str) -> None:
    bindir.mkdir(parents=True, exist_ok=True)
    exe = bindir / name
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)


def test_help_lists_every_harness_marking_installed(tmp_path: Path) -> None:
    fake_cli(tmp_path / "bin", "qwen")
    got = zirv(["--help"], tmp_path, path=f"{tmp_path / 'bin'}:/usr/bin:/bin")
    assert got.returncode == 0
    section = got.stdout.split("Harnesses (* = installed here):", 1)[1].split("Dashboard keys")[0]
    words = section.split()
    for name in adapters.names():
        assert name in words or f"*{name}" in words, name
    assert "*qwen" in words and "claude" in words and "*claude" not in words
    assert "*demo" in words and "*shell" in words
    assert max(len(line) for line in got.stdout.splitlines()) <= 100


def test_models_lists_every_harness_and_every_vendor_with_its_tiers(tmp_path: Path) -> None:
    got = zirv(["models"], tmp_path)
    assert got.returncode == 0, got.stderr
    out = got.stdout
    for name in adapters.names():
        assert f"\n  {name} (" in out, name
    # Single-vendor harnesses with a model flag get their vendor's ladder.
    qwen = out.split("\n  qwen (", 1)[1].split("\n  kimi (", 1)[0]
    assert "cheap     qwen3.8-flash" in qwen and "deep      qwen3.8-max" in qwen
    grok = out.split("\n  grok (", 1)[1].split("\n  muse (", 1)[0]
    assert "standard  grok-4.3" in grok
    # Every vendor of the seed's catalogue, with `–` where it has no rung.
    for vendor in catalogue.VENDORS:
        assert f"\n  {vendor} " in out, vendor
    assert "deepseek   cheap deepseek-v4-flash   standard –   deep deepseek-v4-pro" in out
    assert "minimax    cheap –   standard minimax-m2.7   deep –" in out
    assert "meta       cheap llama-4-maverick   standard muse-spark-1.2   deep –" in out


def test_models_marks_operator_and_env_overrides(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "ctx.toml").write_text('[handover.claude]\ndeep = "claude-opus-5[1m]"\n')
    got = zirv(["models", "claude"], tmp_path, ZIRV_HOME=str(home))
    assert got.returncode == 0, got.stderr
    assert "deep      claude-opus-5[1m] *" in got.stdout
    assert "override: handover.claude.deep in ~/.zirv/ctx.toml" in got.stdout
    assert "cheap     haiku (claude-haiku-5)       built-in ladder" in got.stdout
    got = zirv(["models", "opencode"], tmp_path, ZIRV_HOME=str(home),
               ZIRV_CTX_HANDOVER_OPENCODE_DEEP="anthropic/claude-opus-5")  # fmt: skip
    assert "deep      anthropic/claude-opus-5 *" in got.stdout
    assert "override: env ZIRV_CTX_HANDOVER_OPENCODE_DEEP" in got.stdout
    assert "cheap     –" in got.stdout and "not set: handover.opencode.cheap" in got.stdout


def test_models_rejects_an_unknown_harness(tmp_path: Path) -> None:
    got = zirv(["models", "nope"], tmp_path)
    assert got.returncode == 2 and "unknown harness 'nope'" in got.stderr


def test_agent_model_tier_resolves_and_the_receipt_names_it(tmp_path: Path) -> None:
    # The demo agent prints its model in its banner: the tier reached it resolved.
    got = zirv(["agent", "demo", "hi", "--model", "deep", "--json"], tmp_path, stdin="/quit\n",
               ZIRV_CTX_STATE_DIR=str(tmp_path / "state"))  # fmt: skip
    assert got.returncode == 0, got.stderr
    assert "model demo-deep" in got.stderr and "model deep " not in got.stderr
    assert json.loads(got.stdout)["model"] == "demo-deep"
    # No --model: the receipt names the model the demo runs with.
    got = zirv(["agent", "demo", "hi", "--json"], tmp_path, stdin="/quit\n",
               ZIRV_CTX_STATE_DIR=str(tmp_path / "state"))  # fmt: skip
    assert json.loads(got.stdout)["model"] == "demo-standard"


def test_agent_tier_without_a_model_says_what_to_set(tmp_path: Path) -> None:
    got = zirv(["agent", "opencode", "hi", "--model", "deep", "--json"], tmp_path,
               ZIRV_CTX_STATE_DIR=str(tmp_path / "state"))  # fmt: skip
    assert got.returncode == 2
    reason = json.loads(got.stdout)["reason"]
    assert "no deep model known for opencode" in reason and "handover.opencode.deep" in reason
    assert got.stderr.startswith("zirv agent: ")


def test_resolve_requested_keeps_literals() -> None:
    assert catalogue.resolve_requested("claude", "deep", None) == "opus"
    assert catalogue.resolve_requested("claude", "my-model", None) == "my-model"
    assert catalogue.resolve_requested("claude", None, None) is None
