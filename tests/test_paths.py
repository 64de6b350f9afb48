"""Private directories and files, and the sweep of temp files a killed writer left."""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from zirv_dash import paths


@pytest.fixture(autouse=True)
def _usual_umask() -> Iterator[None]:
    """The common 022 umask, under which a plain mkdir/open gives 0755/0644."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_every_directory_created_for_a_state_path_is_private(tmp_path: Path) -> None:
    deep = paths.ensure_private_dir(tmp_path / "a" / "b" / "c")
    for directory in (tmp_path / "a", tmp_path / "a" / "b", deep):
        assert mode(directory) == 0o700, directory
    assert mode(tmp_path) != 0 and tmp_path.exists()  # an existing parent is left alone


def test_a_log_file_is_created_private_and_stays_private(tmp_path: Path) -> None:
    log_file = paths.ensure_private_file(tmp_path / "logs" / "dash.log")
    handler = logging.FileHandler(log_file)  # what logging.basicConfig(filename=) opens
    handler.close()
    assert mode(log_file) == 0o600 and mode(log_file.parent) == 0o700
    log_file.chmod(0o644)  # an older build's log
    paths.ensure_private_file(log_file)
    assert mode(log_file) == 0o600


def test_a_log_file_is_never_created_through_a_symlink(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "dash.log").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OSError):
        paths.ensure_private_file(tmp_path / "logs" / "dash.log")
    assert not (tmp_path / "elsewhere").exists()


def test_stale_temp_files_are_swept_and_fresh_ones_kept(tmp_path: Path) -> None:
    old = tmp_path / ".abcd1234.json.tmp-xyz"
    claim = tmp_path / ".abcd1234.nudge.claim-99-ab12"
    fresh = tmp_path / ".roster--r.json.tmp-new"
    keep = tmp_path / "abcd1234.json"
    for path in (old, claim, fresh, keep):
        path.write_text("x")
    for path in (old, claim, keep):
        os.utime(path, (1, 1))
    (tmp_path / ".dir.tmp-1").mkdir()
    os.utime(tmp_path / ".dir.tmp-1", (1, 1))
    assert paths.sweep_temp_files(tmp_path) == 2
    assert not old.exists() and not claim.exists()
    assert fresh.exists() and keep.exists() and (tmp_path / ".dir.tmp-1").is_dir()


def test_atomic_write_leaves_nothing_behind_and_sweeps_after_a_kill(tmp_path: Path) -> None:
    """A writer killed between mkstemp and rename leaves `.name.tmp-*`; the next
    sweep of that directory removes it once it is past the grace period."""
    import subprocess
    import sys

    target = tmp_path / "state" / "rec.json"
    code = (
        "import os, sys, tempfile; from pathlib import Path; from zirv_dash import paths\n"
        f"p = Path({str(target)!r}); paths.ensure_private_dir(p.parent)\n"
        "fd, tmp = tempfile.mkstemp(prefix=f'.{p.name}.tmp-', dir=p.parent)\n"
        "os.write(fd, b'half'); os.kill(os.getpid(), 9)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=False, timeout=30)
    leftovers = [p for p in target.parent.iterdir() if ".tmp-" in p.name]
    assert len(leftovers) == 1
    assert paths.sweep_temp_files(target.parent, now=os.stat(leftovers[0]).st_mtime + 3600) == 1
    assert list(target.parent.iterdir()) == []


def test_a_launch_sweeps_every_state_dir_that_holds_atomic_writes(tmp_path: Path) -> None:
    left = []
    for name in ("", "sessions", "dash", "handover", "logs"):
        directory = paths.ensure_private_dir(tmp_path / name if name else tmp_path)
        path = directory / ".thing.json.tmp-dead"
        path.write_text("x")
        os.utime(path, (1, 1))
        left.append(path)
    assert paths.sweep_state_temp_files(tmp_path) == 5
    assert not any(p.exists() for p in left)
