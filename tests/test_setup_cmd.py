"""`zirv setup status|apply`: zirv's hooks merged into real settings files, nothing else touched."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest

from zirv_dash.cli.main import main
from zirv_dash.harnesses.settings_hooks import STOP_COMMAND, TEE

THEIRS = {
    "model": "opus",
    "permissions": {"allow": ["Bash(git status)"]},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.sh"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
    "statusLine": {"type": "command", "command": "cat | jq -r .model.id", "padding": 1},
}


def settings(home: Path) -> Path:
    return home / ".claude" / "settings.json"


def write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=4) + "\n")


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f"{path.name}.zirv-backup-*"))


def test_apply_keeps_every_other_hook_and_wraps_their_statusline(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(settings(home), THEIRS)
    original = settings(home).read_text()
    assert main(["setup", "apply"]) == 0
    merged = json.loads(settings(home).read_text())
    assert merged["model"] == "opus" and merged["permissions"] == THEIRS["permissions"]
    assert merged["hooks"]["PreToolUse"] == THEIRS["hooks"]["PreToolUse"]
    stop = merged["hooks"]["Stop"]
    assert stop[0] == THEIRS["hooks"]["Stop"][0]  # theirs first, untouched
    assert stop[1] == {"hooks": [{"type": "command", "command": STOP_COMMAND}]}
    status = merged["statusLine"]
    assert status["padding"] == 1
    assert status["command"] == f"{TEE} -- sh -c 'cat | jq -r .model.id'"
    (backup,) = backups(settings(home))
    assert backup.read_text() == original
    assert oct(backup.stat().st_mode & 0o777) == "0o600"
    assert "backed up" in capsys.readouterr().out


def test_a_second_apply_changes_nothing(home: Path) -> None:
    write(settings(home), THEIRS)
    assert main(["setup", "apply"]) == 0
    once = settings(home).read_text()
    assert main(["setup", "apply"]) == 0
    assert settings(home).read_text() == once
    assert len(backups(settings(home))) == 1  # no backup of an unchanged file


def test_no_settings_file_gets_the_hook_and_the_bare_tee(home: Path) -> None:
    assert main(["setup", "apply"]) == 0
    merged = json.loads(settings(home).read_text())
    assert merged["statusLine"] == {"type": "command", "command": TEE}
    assert merged["hooks"]["Stop"][0]["hooks"][0]["command"] == STOP_COMMAND
    assert not backups(settings(home))


def test_the_wrapped_statusline_still_prints_theirs(home: Path, tmp_path: Path) -> None:
    """The command as installed, run through a shell as Claude Code runs it."""
    write(settings(home), THEIRS)
    assert main(["setup", "apply"]) == 0
    command = json.loads(settings(home).read_text())["statusLine"]["command"]
    assert shlex.split(command)[:5] == ["zirv", "ctx", "usage", "tee", "--"]
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "zirv").write_text(
        f'#!/bin/sh\nexec {Path(__import__("sys").executable)} -m zirv_dash.cli.main "$@"\n'
    )
    (bindir / "zirv").chmod(0o755)
    (bindir / "jq").write_text("#!/bin/sh\ncat >/dev/null; echo from-their-command\n")
    (bindir / "jq").chmod(0o755)
    env = {"PATH": f"{bindir}:/usr/bin:/bin", "HOME": str(home)}
    out = subprocess.run(
        ["sh", "-c", command], input='{"model": {"id": "x"}}', env=env,
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert out.returncode == 0
    assert out.stdout.strip() == "from-their-command"


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{"hooks": {"Stop": [}', "line 1 column 21"),
        ("[1, 2]", "not a JSON object"),
        ('{"hooks": []}', "`hooks` is not an object"),
        ('{"hooks": {"Stop": {"a": 1}}}', "`hooks.Stop` is not a list"),
        ('{"statusLine": "echo hi"}', "`statusLine` is not a"),
        ('{"statusLine": {"type": "command", "command": 5}}', "`statusLine` is not a"),
        ('{"statusLine": {"type": "static", "command": "x"}}', "`statusLine` is not a"),
        ('{"model": "opus", "model": "sonnet"}', "given twice"),
        ('{"padding": NaN}', "NaN is not a JSON number"),
    ],
)
def test_a_malformed_file_is_refused_with_where_and_left_as_it_was(
    home: Path, capsys: pytest.CaptureFixture[str], text: str, where: str
) -> None:
    settings(home).parent.mkdir(parents=True)
    settings(home).write_text(text)
    assert main(["setup", "apply"]) == 1
    assert where in capsys.readouterr().err
    assert settings(home).read_text() == text
    assert not backups(settings(home))
    assert main(["setup", "status"]) == 1


def test_dry_run_prints_the_diff_and_writes_nothing(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(settings(home), THEIRS)
    before = settings(home).read_text()
    assert main(["setup", "apply", "--dry-run"]) == 0
    out = capsys.readouterr().out
    added = [line for line in out.splitlines() if line.startswith("+") and STOP_COMMAND in line]
    assert added and out.startswith("--- ")
    assert settings(home).read_text() == before and not backups(settings(home))


def test_status_before_and_after(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(settings(home), THEIRS)
    assert main(["setup", "status", "--json"]) == 0
    before = {h["harness"]: h for h in json.loads(capsys.readouterr().out)["harnesses"]}
    assert before["claude"]["stop_hook"] is False and before["claude"]["statusline"] == "foreign"
    assert before["claude"]["would_change"] is True
    assert before["codex"]["exists"] is False and "create it" in before["codex"]["note"]
    assert main(["setup", "apply"]) == 0
    capsys.readouterr()
    assert main(["setup", "status"]) == 0
    text = capsys.readouterr().out
    assert "claude:" in text and "stop hook installed · statusline wrapped · up to date" in text


def test_codex_hooks_file_is_merged_only_when_it_exists(home: Path) -> None:
    hooks = home / ".codex" / "hooks.json"
    write(hooks, {"hooks": {"PreToolUse": [{"matcher": "shell", "hooks": []}]}})
    assert main(["setup", "apply"]) == 0
    merged = json.loads(hooks.read_text())
    assert merged["hooks"]["PreToolUse"] == [{"matcher": "shell", "hooks": []}]
    assert merged["hooks"]["Stop"][0]["hooks"][0]["command"] == STOP_COMMAND
    assert "statusLine" not in merged  # codex has no statusline of this kind
    assert len(backups(hooks)) == 1


def test_a_symlinked_settings_file_is_written_through_the_link(home: Path, tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "claude-settings.json"
    write(real, {"model": "sonnet"})
    settings(home).parent.mkdir(parents=True)
    settings(home).symlink_to(real)
    assert main(["setup", "apply"]) == 0
    assert settings(home).is_symlink()
    assert json.loads(real.read_text())["model"] == "sonnet"
    assert json.loads(real.read_text())["hooks"]["Stop"]


def test_zirvs_hook_is_recognised_however_it_is_spelled(home: Path) -> None:
    spelled = {
        "hooks": {
            "Stop": [
                {"hooks": [{"type": "command", "command": "/usr/local/bin/zirv ctx hook stop"}]}
            ]
        }
    }
    write(settings(home), spelled)
    assert main(["setup", "apply"]) == 0
    stops = json.loads(settings(home).read_text())["hooks"]["Stop"]
    assert len(stops) == 1  # no second copy of the same hook


def test_two_applies_in_one_second_keep_both_backups(home: Path) -> None:
    write(settings(home), {"model": "opus"})
    assert main(["setup", "apply"]) == 0
    write(settings(home), {"model": "sonnet"})  # the user (or Claude Code) changed it again
    assert main(["setup", "apply"]) == 0
    kept = sorted(json.loads(b.read_text())["model"] for b in backups(settings(home)))
    assert kept == ["opus", "sonnet"]


def test_a_dangling_symlink_or_a_fifo_is_refused(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings(home).parent.mkdir(parents=True)
    settings(home).symlink_to(tmp_path / "nowhere" / "settings.json")
    assert main(["setup", "apply"]) == 1
    assert "which does not exist" in capsys.readouterr().err
    assert not (tmp_path / "nowhere").exists()
    settings(home).unlink()
    os.mkfifo(settings(home))
    assert main(["setup", "status"]) == 1  # refused at once, never blocking on the FIFO
    assert "not a regular file" in capsys.readouterr().out
