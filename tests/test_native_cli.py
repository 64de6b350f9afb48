"""`zirv chat --runtime native`: what it refuses, by name, before any UI starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from zirv_dash import chat, paths


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
