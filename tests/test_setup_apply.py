"""`zirv setup`: the homes the harnesses name (CLAUDE_CONFIG_DIR, CODEX_HOME), modes kept, usage."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from zirv_dash.cli.main import main
from zirv_dash.harnesses.settings_hooks import STOP_COMMAND, TEE

THEIRS = {
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.sh"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
    "statusLine": {"type": "command", "command": "~/bin/line.sh", "padding": 0},
}


def write(path: Path, data: object, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")
    path.chmod(mode)


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f"{path.name}.zirv-backup-*"))


def stop_commands(path: Path) -> list[str]:
    groups = json.loads(path.read_text())["hooks"]["Stop"]
    return [h["command"] for g in groups for h in g["hooks"]]


def test_claude_config_dir_moves_the_settings_file(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code 2.1.197 reads `process.env.CLAUDE_CONFIG_DIR ?? ~/.claude` (bin/claude.exe)."""
    config = tmp_path / "elsewhere"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    write(config / "settings.json", THEIRS)
    assert main(["setup", "apply"]) == 0
    assert stop_commands(config / "settings.json") == ["notify-send done", STOP_COMMAND]
    assert not (home / ".claude" / "settings.json").exists()  # the default is left alone


def test_codex_home_moves_the_hooks_file_and_a_second_apply_changes_nothing(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    codex = tmp_path / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(codex))
    write(codex / "hooks.json", {"hooks": THEIRS["hooks"]})
    assert main(["setup", "apply"]) == 0
    once = (codex / "hooks.json").read_text()
    assert stop_commands(codex / "hooks.json") == ["notify-send done", STOP_COMMAND]
    assert main(["setup", "apply"]) == 0
    assert (codex / "hooks.json").read_text() == once
    assert len(backups(codex / "hooks.json")) == 1


def test_the_file_keeps_its_mode_and_the_backup_is_private(home: Path) -> None:
    path = home / ".claude" / "settings.json"
    write(path, THEIRS, mode=0o640)
    original = path.read_bytes()
    assert main(["setup", "apply"]) == 0
    assert path.stat().st_mode & 0o777 == 0o640
    (backup,) = backups(path)
    assert backup.read_bytes() == original
    assert backup.stat().st_mode & 0o777 == 0o600


def test_status_json_before_and_after_apply(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = home / ".claude" / "settings.json"
    write(path, THEIRS)
    assert main(["setup", "status", "--json"]) == 0
    before = {h["harness"]: h for h in json.loads(capsys.readouterr().out)["harnesses"]}
    assert before["claude"]["path"] == str(path)
    assert (before["claude"]["stop_hook"], before["claude"]["statusline"]) == (False, "foreign")
    assert main(["setup", "apply"]) == 0
    capsys.readouterr()
    assert main(["setup", "status", "--json"]) == 0
    after = {h["harness"]: h for h in json.loads(capsys.readouterr().out)["harnesses"]}
    assert (after["claude"]["stop_hook"], after["claude"]["statusline"]) == (True, "wrapped")
    assert after["claude"]["would_change"] is False
    line = json.loads(path.read_text())["statusLine"]
    assert line["command"].startswith(f"{TEE} -- ") and line["padding"] == 0


def test_a_malformed_codex_file_is_refused_with_its_line(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hooks = home / ".codex" / "hooks.json"
    hooks.parent.mkdir(parents=True)
    hooks.write_bytes(b'{\n  "hooks": {"Stop": [\n}\n')
    stat_before = os.stat(hooks)
    assert main(["setup", "apply"]) == 1
    assert "line 3 column 1" in capsys.readouterr().err
    assert hooks.read_bytes() == b'{\n  "hooks": {"Stop": [\n}\n'
    assert os.stat(hooks).st_mtime_ns == stat_before.st_mtime_ns
    assert not backups(hooks)


@pytest.mark.parametrize(
    "argv",
    [["setup"], ["setup", "bogus"], ["setup", "status", "--dry-run"], ["setup", "apply", "--json"]],
)
def test_usage_errors_exit_2_and_write_nothing(home: Path, argv: list[str]) -> None:
    assert main(argv) == 2
    assert not (home / ".claude").exists()
