"""`zirv chat --runtime native`: what it refuses, by name, before any UI starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from zirv_dash import paths, spawn
from zirv_dash.cli import agent as agent_cli
from zirv_dash.cli import agent_args, chat


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = tmp_path / "repo"
    (repo / ".zirv").mkdir(parents=True)
    monkeypatch.chdir(repo)
    return repo


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--agent", "claude"], "--agent"),
        (["--simple"], "--simple"),
        (["--model", "gpt-x"], "--model"),
        (["--agent", "codex", "--simple"], "--agent, --simple"),
    ],
)
def test_wrapped_only_flags_are_refused_by_name(
    repo: Path, capsys: pytest.CaptureFixture[str], flags: list[str], named: str
) -> None:
    assert chat.main(["--allow-nested", "--runtime", "native", *flags]) == 2
    err = capsys.readouterr().err
    assert named in err and "wrapped harness only" in err and "native.toml" in err


def test_a_bad_native_toml_is_named_before_the_dashboard(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = paths.operator_dir() / "native.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("schema = 1\n[roles]\norchestrator = 'nowhere'\n")
    assert chat.main(["--allow-nested", "--runtime", "native"]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "[route.NAME]" in err


def test_no_terminal_is_refused_with_the_floor(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Under pytest stdin is not a terminal: the native pane has no single-session form.
    assert chat.main(["--allow-nested", "--runtime", "native"]) == 2
    err = capsys.readouterr().err
    assert "not a terminal" in err and "80x20" in err


def test_zirv_native_is_chat_with_the_native_runtime(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert chat.native_main(["--allow-nested", "--simple"]) == 2
    assert "--simple" in capsys.readouterr().err


def test_agent_runtime_native_takes_a_prompt_only() -> None:
    args = agent_args.parse_args(["--runtime", "native", "fix the tests", "--json"])
    assert (args.harness, args.prompt, args.runtime, args.json) == (
        "native",
        "fix the tests",
        "native",
        True,
    )
    with pytest.raises(agent_args.UsageError, match="PROMPT only"):
        agent_args.parse_args(["--runtime", "native", "claude", "fix"])
    with pytest.raises(agent_args.UsageError, match="wrapped or native"):
        agent_args.parse_args(["--runtime", "pty", "claude", "fix"])


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (["--model", "m"], "--model"),
        (["--force"], "--force"),
        (["--timeout-secs", "5"], "--timeout-secs"),
        (["--", "--yolo"], "-- flags"),
    ],
)
def test_agent_runtime_native_refuses_wrapped_only_options_by_name(
    extra: list[str], named: str
) -> None:
    with pytest.raises(agent_args.UsageError, match="wrapped harness only") as caught:
        agent_args.parse_args(["--runtime", "native", "fix", *extra])
    assert named in str(caught.value)


def test_agent_runtime_native_without_a_dashboard_says_so(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert agent_cli.main(["--runtime", "native", "fix the tests"]) == 1
    err = capsys.readouterr().err
    assert "--runtime native opens a pane in a dashboard" in err


def test_the_spawn_policy_takes_native_and_refuses_a_model_for_it(repo: Path) -> None:
    ctx = spawn.ValidationContext(repo=repo)
    base = {"agent": "native", "prompt": "fix", "cwd": str(repo), "requested_by": "abc"}
    decision = spawn.validate(spawn.SpawnRequest.from_json(base), ctx)
    assert decision.ok and decision.adapter is not None and decision.adapter.name == "native"
    for extra in ({"model": "gpt"}, {"timeout_secs": 60}):
        refused = spawn.validate(spawn.SpawnRequest.from_json({**base, **extra}), ctx)
        assert not refused.ok and "not for a native pane" in (refused.reason or "")
        assert next(iter(extra)) in (refused.reason or "")
