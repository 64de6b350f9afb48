from __future__ import annotations

from pathlib import Path

import pytest

from zirv_dash.config.layers import ConfigError, load_adapter_gate, load_settings


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_defaults(tmp_path: Path) -> None:
    s = load_settings(tmp_path)
    assert s.dash.enabled is True
    assert s.dash.max_panes == 9
    assert s.dash.idle_quiet_ms == 10_000
    assert s.dash.roster_max_age_secs == 604_800
    assert s.mail.keep == 50 and s.mail.max_message_bytes == 4096


def test_layers_operator_then_repo_then_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    op = Path(os.environ["ZIRV_HOME"])
    write(op / "ctx.toml", "[dash]\nmax_panes = 4\nidle_quiet_ms = 5000\n")
    write(tmp_path / ".zirv" / "ctx.toml", "[dash]\nidle_quiet_ms = 2000\n")
    s = load_settings(tmp_path)
    assert s.dash.max_panes == 4
    assert s.dash.idle_quiet_ms == 2000  # repo may set this one
    monkeypatch.setenv("ZIRV_CTX_DASH_MAX_PANES", "6")
    monkeypatch.setenv("ZIRV_CTX_DASH", "false")
    s = load_settings(tmp_path)
    assert s.dash.max_panes == 6
    assert s.dash.enabled is False
    s = load_settings(tmp_path, flags={"dash": {"idle_quiet_ms": 700}})
    assert s.dash.idle_quiet_ms == 700


def test_repo_forbidden_key_names_key_and_where(tmp_path: Path) -> None:
    write(tmp_path / ".zirv" / "ctx.toml", "[dash]\nmax_panes = 50\n")
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path)
    msg = str(info.value)
    assert "dash.max_panes" in msg and "~/.zirv/ctx.toml" in msg
    assert "ZIRV_CTX_DASH_MAX_PANES" in msg


def test_repo_may_not_pick_the_agent(tmp_path: Path) -> None:
    write(tmp_path / ".zirv" / "ctx.toml", 'agent = "codex"\n')
    with pytest.raises(ConfigError, match="`agent` may not be set by a repository"):
        load_settings(tmp_path)


def test_malformed_toml_names_file_and_line(tmp_path: Path) -> None:
    bad = write(tmp_path / ".zirv" / "ctx.toml", "[dash]\nidle_quiet_ms = 10\nthis is not toml\n")
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path)
    assert str(bad) in str(info.value)
    assert "line 3" in str(info.value)


def test_invalid_value_is_explained(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZIRV_CTX_DASH_MAX_PANES", "many")
    with pytest.raises(ConfigError, match="max_panes"):
        load_settings(tmp_path)


def test_adapter_gate_repo_only_narrows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    op = Path(os.environ["ZIRV_HOME"])
    write(op / ".settings.toml", "[agents.codex]\nenabled = false\n")
    write(
        tmp_path / ".zirv" / ".settings.toml",
        "[agents.codex]\nenabled = true\n[agents.gemini]\nenabled = false\n",
    )
    gate = load_adapter_gate(tmp_path, ["claude", "codex", "gemini"])
    assert not gate.enabled("codex")  # the repo cannot re-enable it
    assert not gate.enabled("gemini")  # but it can narrow
    assert gate.enabled("claude")
    monkeypatch.setenv("ZIRV_AGENT_CODEX_ENABLED", "true")
    assert load_adapter_gate(tmp_path, ["codex"]).enabled("codex")
    monkeypatch.setenv("ZIRV_AGENT_CODEX_ENABLED", "yes")
    with pytest.raises(ConfigError, match="ZIRV_AGENT_CODEX_ENABLED"):
        load_adapter_gate(tmp_path, ["codex"])


# --- a repo layer of the wrong shape never replaces operator values -------------------


def _operator_caps_panes() -> None:
    import os

    write(
        Path(os.environ["ZIRV_HOME"]) / "ctx.toml",
        '[dash]\nmax_panes = 2\n[handover.claude]\ncheap = "op-model"\n',
    )


@pytest.mark.parametrize(
    ("repo_text", "key"),
    [
        ('dash = "x"\n', "dash"),
        ("[[dash]]\nidle_quiet_ms = 500\n", "dash"),
        ("dash = 3\n", "dash"),
        ("handover = 1\n", "handover"),
        ('handover = "x"\n', "handover"),
        ("[[handover]]\n", "handover"),
        ('worker = "x"\n', "worker"),
        ('mail = "x"\n', "mail"),
    ],
)
def test_repo_layer_of_the_wrong_shape_is_an_error(
    tmp_path: Path, repo_text: str, key: str
) -> None:
    _operator_caps_panes()
    repo_file = write(tmp_path / ".zirv" / "ctx.toml", repo_text)
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path)
    msg = str(info.value)
    assert str(repo_file) in msg and f"`{key}`" in msg


def test_operator_values_survive_a_well_shaped_repo_layer(tmp_path: Path) -> None:
    _operator_caps_panes()
    write(tmp_path / ".zirv" / "ctx.toml", "[dash]\nidle_quiet_ms = 500\n")
    s = load_settings(tmp_path)
    assert s.dash.max_panes == 2 and s.dash.idle_quiet_ms == 500
    assert s.handover == {"claude": {"cheap": "op-model"}}


def test_operator_layer_of_the_wrong_shape_names_file_and_key(tmp_path: Path) -> None:
    import os

    op_file = write(Path(os.environ["ZIRV_HOME"]) / "ctx.toml", "[handover]\nclaude = 1\n")
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path)
    assert str(op_file) in str(info.value) and "handover.claude" in str(info.value)


@pytest.mark.parametrize("key", ["enabled", "keep", "max_delivered_bytes"])
def test_repo_may_not_set_mail_limits(tmp_path: Path, key: str) -> None:
    value = "false" if key == "enabled" else "1"
    write(tmp_path / ".zirv" / "ctx.toml", f"[mail]\n{key} = {value}\n")
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path)
    assert f"mail.{key}" in str(info.value) and "repo-forbidden" in str(info.value)


def test_repo_may_still_set_mail_message_size(tmp_path: Path) -> None:
    write(tmp_path / ".zirv" / "ctx.toml", "[mail]\nmax_message_bytes = 2048\n")
    assert load_settings(tmp_path).mail.max_message_bytes == 2048


def test_unencodable_config_string_names_file(tmp_path: Path) -> None:
    import os

    op_file = write(Path(os.environ["ZIRV_HOME"]) / "ctx.toml", '[worker]\nclaude = "a\\u0000b"\n')
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path)
    assert str(op_file) in str(info.value) and "worker.claude" in str(info.value)


@pytest.mark.parametrize("text", ['agents = "x"\n', "[[agents]]\n", "[agents]\ncodex = false\n"])
def test_adapter_gate_of_the_wrong_shape_is_an_error(tmp_path: Path, text: str) -> None:
    gate_file = write(tmp_path / ".zirv" / ".settings.toml", text)
    with pytest.raises(ConfigError) as info:
        load_adapter_gate(tmp_path, ["codex"])
    assert str(gate_file) in str(info.value) and "`agents" in str(info.value)


def test_the_init_sample_parses_and_every_commented_repo_key_is_allowed(tmp_path: Path) -> None:
    from zirv_dash.config.sample import SAMPLE_CTX_TOML

    repo_part = SAMPLE_CTX_TOML.split("# Operator-only keys")[0]
    uncommented = "\n".join(
        line[2:] for line in repo_part.splitlines() if line.startswith(("# [", "# idle", "# max"))
    )
    write(tmp_path / ".zirv" / "ctx.toml", uncommented + "\n")
    s = load_settings(tmp_path)
    assert s.dash.idle_quiet_ms == 10000 and s.mail.max_message_bytes == 4096


# --- motion, and sections kept for upstream zirv -------------------------------------


def test_motion_defaults_to_full_and_reduced_stops_the_spinners(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    assert load_settings(tmp_path).dash.animated is True
    write(Path(os.environ["ZIRV_HOME"]) / "ctx.toml", '[dash]\nmotion = "reduced"\n')
    s = load_settings(tmp_path)
    assert s.dash.motion == "reduced" and s.dash.animated is False
    monkeypatch.setenv("ZIRV_CTX_DASH_MOTION", "Full")  # the environment outranks the file
    assert load_settings(tmp_path).dash.animated is True


def test_an_unknown_motion_names_the_key_and_the_file(tmp_path: Path) -> None:
    import os

    op_file = write(Path(os.environ["ZIRV_HOME"]) / "ctx.toml", '[dash]\nmotion = "slow"\n')
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path)
    msg = str(info.value)
    assert "dash.motion" in msg and "'slow'" in msg and str(op_file) in msg


def test_zirv_ctx_config_checks_motion_before_writing() -> None:
    from zirv_dash.cli.config_keys import Refused, parse_key, value_of

    key = parse_key("dash.motion")
    assert value_of(key, "reduced") == "reduced"
    with pytest.raises(Refused, match="dash.motion"):
        value_of(key, "slow")


@pytest.mark.parametrize(
    "text",
    ["[supervise]\nmax_nudges = 5\npoll_ms = 'x'\nmax_restarts = 2\n", 'supervise = ["x"]\n'],
)
def test_an_upstream_supervise_section_is_ignored_in_any_layer(tmp_path: Path, text: str) -> None:
    import os

    write(Path(os.environ["ZIRV_HOME"]) / "ctx.toml", text + "[dash]\nmax_panes = 3\n")
    write(tmp_path / ".zirv" / "ctx.toml", text)
    s = load_settings(tmp_path)
    assert s.dash.max_panes == 3 and not hasattr(s, "supervise")


@pytest.mark.parametrize("key", ["supervise.max_nudges", "supervise.poll_ms", "supervise.x"])
def test_zirv_ctx_config_refuses_supervise_keys_saying_why(key: str) -> None:
    from zirv_dash.cli.config_keys import Refused, parse_key
    from zirv_dash.config.layers import all_keys

    assert not [k for k in all_keys() if k.startswith("supervise.")]
    with pytest.raises(Refused) as info:
        parse_key(key)
    msg = str(info.value)
    assert f"unknown key `{key}`" in msg and "does not read `[supervise]`" in msg
    assert "ignored" in msg
