"""`zirv init` creates `.zirv/ctx.toml` and never writes through a symlink."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def run_init(cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zirv_dash.cli.main", "init"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_init_creates_the_sample(tmp_path: Path) -> None:
    result = run_init(tmp_path)
    assert result.returncode == 0, result.stderr
    assert "idle_quiet_ms" in (tmp_path / ".zirv" / "ctx.toml").read_text()
    again = run_init(tmp_path)
    assert again.returncode == 0 and "already exists" in again.stdout


def test_init_does_not_follow_a_dangling_ctx_symlink(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere" / "planted.toml"
    elsewhere.parent.mkdir()
    (tmp_path / ".zirv").mkdir()
    (tmp_path / ".zirv" / "ctx.toml").symlink_to(elsewhere)
    result = run_init(tmp_path)
    assert result.returncode == 1
    assert "is a symlink" in result.stderr and "Traceback" not in result.stderr
    assert not elsewhere.exists()


def test_init_refuses_a_dangling_zirv_dir_symlink(tmp_path: Path) -> None:
    target = tmp_path / "nowhere"
    (tmp_path / ".zirv").symlink_to(target)
    result = run_init(tmp_path)
    assert result.returncode == 1
    assert "is a symlink" in result.stderr and "Traceback" not in result.stderr
    assert not target.exists()
