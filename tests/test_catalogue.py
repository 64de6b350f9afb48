"""Model catalogue, harness vendors, tier resolution and picker rows."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zirv_dash.config.layers import ConfigError, Settings, load_settings
from zirv_dash.harnesses import adapters, catalogue
from zirv_dash.harnesses.catalogue import PickerRow, ResolveError, resolve_model


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Private state/operator dirs, a repo cwd, and a PATH with no vendor CLIs."""
    for name in list(os.environ):
        if name.startswith(("ZIRV_CTX_HANDOVER_", "ZIRV_AGENT_")) or name == "ZIRV_CTX_AGENT":
            monkeypatch.delenv(name)
    monkeypatch.setenv("ZIRV_CTX_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("ZIRV_HOME", str(tmp_path / "zirv-home"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    monkeypatch.chdir(repo)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    return bin_dir


def install(bin_dir: Path, name: str) -> None:
    exe = bin_dir / name
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(0o755)


# --- catalogue ----------------------------------------------------------------------


def test_every_vendor_from_the_readme_is_catalogued() -> None:
    assert catalogue.VENDORS == (
        "anthropic",
        "openai",
        "google",
        "xai",
        "qwen",
        "moonshot",
        "mistral",
        "deepseek",
        "zhipu",
        "minimax",
        "meta",
        "amazon",
    )
    for model in catalogue.CATALOGUE:
        assert model.tier in (None, *catalogue.TIERS)


@pytest.mark.parametrize(
    ("vendor", "expected"),
    [
        ("anthropic", {"cheap": "haiku", "standard": "sonnet", "deep": "opus"}),
        ("openai", {"cheap": "gpt-5.4-mini", "standard": "gpt-5.6-terra", "deep": "gpt-5.6-sol"}),
        ("deepseek", {"cheap": "deepseek-v4-flash", "deep": "deepseek-v4-pro"}),
        ("minimax", {"standard": "minimax-m2.7"}),
        ("meta", {"cheap": "llama-4-maverick", "standard": "muse-spark-1.2"}),
    ],
)
def test_vendor_ladders(vendor: str, expected: dict[str, str]) -> None:
    assert {t: m.alias for t, m in catalogue.ladder(vendor).items()} == expected


def test_lookup_alias_id_and_provider_prefix() -> None:
    assert catalogue.tier_of("opus") == "deep"
    assert catalogue.tier_of("claude-opus-5") == "deep"
    assert catalogue.tier_of("anthropic/claude-haiku-5") == "cheap"
    assert catalogue.tier_of("gpt-6-astra") is None
    assert catalogue.lookup("gpt-6-astra") is not None
    assert catalogue.lookup("gpt-6-astra").fallback_tier == "deep"  # type: ignore[union-attr]
    assert catalogue.vendor_of("claude-opus-5[1m]") == "anthropic"
    assert catalogue.vendor_of("gpt-5-codex") == "openai"
    assert catalogue.tier_of("unknown-model") is None
    assert catalogue.same_model("sonnet", "claude-sonnet-5")
    assert not catalogue.same_model("sonnet", "opus")


def test_harness_vendors_follow_the_readme_table() -> None:
    everything = set(catalogue.VENDORS)
    for multi in ("opencode", "pi", "copilot", "droid", "goose"):
        assert set(catalogue.harness_vendors(multi)) == everything
    assert catalogue.harness_vendors("claude") == ("anthropic",)
    assert catalogue.harness_vendors("codex") == ("openai",)
    assert catalogue.harness_vendors("gemini") == ("google",)
    assert catalogue.harness_vendors("qwen") == ("qwen",)
    assert catalogue.harness_vendors("grok") == ("xai",)
    assert catalogue.harness_vendors("kimi") == ("moonshot",)
    assert catalogue.harness_vendors("muse") == ("meta",)
    assert catalogue.harness_vendors("cursor-agent") == ()
    for adapter in adapters.ADAPTERS.values():
        if not adapter.builtin:
            assert set(adapter.vendors) <= everything, adapter.name
    assert "claude" in catalogue.harnesses_for_vendor("anthropic")


def test_built_in_ladders_only_use_catalogued_models_of_the_harness_vendor() -> None:
    for agent, tiers in catalogue.LADDERS.items():
        if agent == "demo":
            continue
        for tier, model in tiers.items():
            entry = catalogue.lookup(model)
            assert entry is not None and entry.tier == tier, (agent, tier, model)
            assert entry.vendor in catalogue.harness_vendors(agent)


# --- resolution ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("agent", "tier", "model"),
    [
        ("claude", "cheap", "haiku"),
        ("claude", "standard", "sonnet"),
        ("claude", "deep", "opus"),
        ("codex", "cheap", "gpt-5.4-mini"),
        ("codex", "standard", "gpt-5.6-terra"),
        ("codex", "deep", "gpt-5.6-sol"),
        ("gemini", "deep", "gemini-3.1-pro-preview"),
        ("demo", "cheap", "demo-cheap"),
        ("demo", "standard", "demo-standard"),
        ("demo", "deep", "demo-deep"),
    ],
)
def test_built_in_ladder(agent: str, tier: str, model: str) -> None:
    res = resolve_model(agent, tier, Settings())
    assert (res.agent, res.tier, res.model, res.source) == (agent, tier, model, "ladder")
    assert resolve_model(agent, tier.upper(), None).model == model


def test_override_from_settings_wins_over_the_ladder() -> None:
    settings = Settings(handover={"claude": {"deep": "claude-opus-5[1m]"}})
    res = resolve_model("claude", "deep", settings)
    assert (res.model, res.source) == ("claude-opus-5[1m]", "override")
    assert resolve_model("claude", "cheap", settings).model == "haiku"


def test_override_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZIRV_CTX_HANDOVER_CODEX_DEEP", "gpt-6-astra")
    monkeypatch.setenv("ZIRV_CTX_HANDOVER_OPENCODE_STANDARD", "anthropic/claude-sonnet-5")
    settings = load_settings()
    assert resolve_model("codex", "deep", settings).model == "gpt-6-astra"
    res = resolve_model("opencode", "standard", settings)
    assert (res.model, res.source) == ("anthropic/claude-sonnet-5", "override")


def test_override_from_operator_file_and_repo_may_not_set_it(tmp_path: Path) -> None:
    op = tmp_path / "zirv-home"
    op.mkdir()
    (op / "ctx.toml").write_text('[handover.pi]\ndeep = "openai/gpt-5.6-sol"\n')
    assert resolve_model("pi", "deep", load_settings()).model == "openai/gpt-5.6-sol"
    repo_cfg = Path.cwd() / ".zirv"
    repo_cfg.mkdir()
    (repo_cfg / "ctx.toml").write_text('[handover.claude]\ndeep = "haiku"\n')
    with pytest.raises(ConfigError, match="handover.claude"):
        load_settings()


def test_env_override_outranks_operator_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    op = tmp_path / "zirv-home"
    op.mkdir()
    (op / "ctx.toml").write_text('[handover.claude]\nstandard = "haiku"\n')
    monkeypatch.setenv("ZIRV_CTX_HANDOVER_CLAUDE_STANDARD", "opus")
    assert resolve_model("claude", "standard", load_settings()).model == "opus"


@pytest.mark.parametrize(
    ("agent", "model", "tier"),
    [
        ("claude", "claude-opus-5", "deep"),
        ("claude", "claude-fable-5-1", None),
        ("codex", "gpt-5-codex", None),
        ("opencode", "anthropic/claude-haiku-5", "cheap"),
        ("demo", "my-local-model", None),
    ],
)
def test_literal_model_passes_through(agent: str, model: str, tier: str | None) -> None:
    res = resolve_model(agent, model, Settings())
    assert (res.model, res.tier, res.source) == (model, tier, "literal")


def test_unresolvable_tier_names_the_key_to_set() -> None:
    with pytest.raises(ResolveError) as err:
        resolve_model("opencode", "deep", Settings())
    text = str(err.value)
    assert "zirv ctx config set handover.opencode.deep <model>" in text
    assert '[handover.opencode] deep = "<model>"' in text
    assert "~/.zirv/ctx.toml" in text
    assert "ZIRV_CTX_HANDOVER_OPENCODE_DEEP" in text


@pytest.mark.parametrize("bad", ["--dangerously-skip-permissions", "two words", "a;rm -rf"])
def test_model_that_is_not_an_id_is_rejected(bad: str) -> None:
    with pytest.raises(ResolveError, match="neither a tier"):
        resolve_model("claude", bad, Settings())


def test_unknown_harness() -> None:
    with pytest.raises(ResolveError, match="unknown harness 'nope'"):
        resolve_model("nope", "deep", Settings())


def test_harness_without_a_model_flag() -> None:
    res = resolve_model("shell", "standard", Settings())
    assert (res.model, res.display_model, res.source) == (None, "–", "harness-default")
    assert resolve_model("shell", "–", Settings()).model is None
    with pytest.raises(ResolveError, match="only the `standard` tier"):
        resolve_model("shell", "deep", Settings())
    with pytest.raises(ResolveError, match="no verified model flag"):
        resolve_model("kimi", "kimi-k3", Settings())
    with pytest.raises(ResolveError, match="handover.kimi.deep"):
        resolve_model("kimi", "deep", Settings(handover={"kimi": {"deep": "kimi-k3"}}))


# --- picker -------------------------------------------------------------------------


def rows_by_agent(rows: list[PickerRow]) -> dict[str, list[tuple[str, str, bool]]]:
    out: dict[str, list[tuple[str, str, bool]]] = {}
    for row in rows:
        out.setdefault(row.agent, []).append((row.tier, row.model, row.current))
    return out


def test_picker_rows_for_builtins_only() -> None:
    rows = catalogue.picker_rows(Settings(), lambda _n: True, "demo", "demo-standard")
    assert rows_by_agent(rows) == {
        "shell": [("standard", "–", False)],
        "demo": [
            ("cheap", "demo-cheap", False),
            ("standard", "demo-standard", True),
            ("deep", "demo-deep", False),
        ],
    }


def test_picker_rows_installed_enabled_and_resolvable(isolated: Path) -> None:
    install(isolated, "claude")
    install(isolated, "opencode")
    install(isolated, "kimi")
    settings = Settings(handover={"opencode": {"deep": "anthropic/claude-opus-5"}})
    rows = catalogue.picker_rows(settings, lambda n: n != "demo", "claude", "claude-sonnet-5")
    table = rows_by_agent(rows)
    assert table["claude"] == [
        ("cheap", "haiku", False),
        ("standard", "sonnet", True),
        ("deep", "opus", False),
    ]
    assert table["opencode"] == [("deep", "anthropic/claude-opus-5", False)]
    assert table["kimi"] == [("standard", "–", False)]
    assert table["shell"] == [("standard", "–", False)]
    # Installed but disabled: listed, with the reason it cannot be chosen.
    assert table["demo"] == [("", "–", False)]
    assert [r.reason for r in rows if r.agent == "demo"] == ["disabled"]
    assert "codex" not in table  # not installed


def test_every_installed_harness_is_listed_with_why_it_cannot_be_chosen(isolated: Path) -> None:
    # opencode, pi and copilot take a model but have no ladder (they run any
    # vendor): with no override no tier resolves, and they were left out
    # without a word. droid's interactive CLI takes no model: its row says so.
    for name in ("opencode", "pi", "copilot", "droid"):
        install(isolated, name)
    refusals = {"shell": "disabled in /r/.zirv/.settings.toml"}
    rows = catalogue.picker_rows(Settings(), lambda n: n not in refusals, "pi", None, refusals.get)
    by_agent = {r.agent: r for r in rows}
    for name in ("opencode", "pi", "copilot"):
        row = by_agent[name]
        assert row.reason.startswith("no model set for its tiers")
        assert f"handover.{name}.standard" in row.reason
    assert by_agent["pi"].current  # the pane's own harness, even if not choosable
    assert by_agent["shell"].reason == "disabled in /r/.zirv/.settings.toml"
    droid = [r for r in rows if r.agent == "droid"]
    assert [(r.tier, r.model, r.reason) for r in droid] == [("standard", "–", "")]
    assert droid[0].note == "its own default model"
    assert not by_agent["demo"].reason and not by_agent["demo"].note


def test_picker_marks_shell_current() -> None:
    rows = catalogue.picker_rows(Settings(), lambda _n: True, "shell", None)
    assert [r for r in rows if r.current] == [PickerRow("shell", "standard", "–", True)]
