"""OSC 52 bytes and the platform clipboard fallback (fake wl-copy/xclip on PATH)."""

from __future__ import annotations

import base64
import time
from pathlib import Path

from zirv_dash.clipboard import (
    COPIED,
    FAILED,
    OSC52_LIMIT,
    CommandResult,
    Outcome,
    cap_text,
    describe,
    osc52,
    outcome,
    platform_commands,
    run_platform_copy,
)


def fake(bin_dir: Path, name: str, body: str) -> None:
    bin_dir.mkdir(exist_ok=True)
    path = bin_dir / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)


def test_osc52_bytes() -> None:
    assert osc52("hi ✓") == b"\x1b]52;c;" + base64.b64encode("hi ✓".encode()) + b"\x07"
    assert osc52("") == b"\x1b]52;c;\x07"


def test_osc52_is_capped_on_a_character_boundary() -> None:
    text = "€" * 30000  # 3 bytes each: 90 000 bytes, far over the cap
    payload = osc52(text)[7:-1]
    assert len(payload) <= OSC52_LIMIT
    decoded = base64.b64decode(payload).decode("utf-8")  # no split character
    assert decoded == "€" * len(decoded) and len(decoded) == (OSC52_LIMIT // 4 * 3) // 3
    assert cap_text("abc") == b"abc"
    assert len(cap_text("a" * 100_000)) == OSC52_LIMIT // 4 * 3


def test_platform_commands_by_platform(tmp_path: Path) -> None:
    bins = tmp_path / "bin"
    fake(bins, "wl-copy", "exit 0")
    fake(bins, "xclip", "exit 0")
    fake(bins, "pbcopy", "exit 0")
    env = {"PATH": str(bins)}
    linux = platform_commands("linux", env)
    assert [Path(c[0]).name for c in linux] == ["wl-copy", "xclip"]
    assert linux[1][1:] == ["-selection", "clipboard"]
    assert [Path(c[0]).name for c in platform_commands("darwin", env)] == ["pbcopy"]
    assert platform_commands("linux", {"PATH": str(tmp_path / "none")}) == []


def test_wl_copy_fails_then_xclip_confirms(tmp_path: Path) -> None:
    bins = tmp_path / "bin"
    out = tmp_path / "clip.txt"
    fake(bins, "wl-copy", 'echo "Failed to connect to a Wayland server" >&2; exit 1')
    # xclip forks a child that keeps serving the selection (and our stdio).
    fake(bins, "xclip", f'cat > "{out}"; (sleep 20 &) ; exit 0')
    commands = platform_commands("linux", {"PATH": str(bins)})
    started = time.monotonic()
    result = run_platform_copy("copied ✓\nline 2", commands)
    assert time.monotonic() - started < 5  # did not wait for the forked child
    assert result == CommandResult(True, "xclip", "")
    assert out.read_text() == "copied ✓\nline 2"
    assert outcome(True, result) is Outcome.CONFIRMED
    assert describe(Outcome.CONFIRMED, True, result) == f"{COPIED} (xclip + OSC 52)"


def test_no_command_worked(tmp_path: Path) -> None:
    bins = tmp_path / "bin"
    fake(bins, "wl-copy", 'echo "no wayland" >&2; exit 1')
    fake(bins, "xclip", 'echo "Error: Can\'t open display: (null)" >&2; exit 1')
    result = run_platform_copy("x", platform_commands("linux", {"PATH": str(bins)}))
    assert not result.ok
    assert result.error == "wl-copy: no wayland; xclip: Error: Can't open display: (null)"
    # OSC 52 was written: copied, but unconfirmed.
    assert outcome(True, result) is Outcome.UNCONFIRMED
    assert describe(Outcome.UNCONFIRMED, True, result).startswith(COPIED)
    # Neither path worked.
    assert outcome(False, result) is Outcome.FAILED
    assert describe(Outcome.FAILED, False, result) == f"{FAILED}: {result.error}"
    none = run_platform_copy("x", [])
    assert not none.ok and "no wl-copy" in none.error


def test_inside_tmux_a_tmux_buffer_is_the_last_resort(tmp_path: Path) -> None:
    bins = tmp_path / "bin"
    out = tmp_path / "buffer.txt"
    fake(bins, "xclip", 'echo "Error: Can\'t open display: (null)" >&2; exit 1')
    # An old tmux without load-buffer -w: the plain form takes the text.
    old_tmux = '[ "$2" = "-w" ] && { echo "unknown flag -w" >&2; exit 1; }; '
    fake(bins, "tmux", old_tmux + f'cat > "{out}"')
    env = {"PATH": str(bins), "TMUX": "/tmp/tmux-0/default,1,0"}
    commands = platform_commands("linux", env)
    assert [c[1:] for c in commands] == [
        ["-selection", "clipboard"],
        ["load-buffer", "-w", "-"],
        ["load-buffer", "-"],
    ]
    result = run_platform_copy("from a pane", commands)
    assert result == CommandResult(True, "tmux buffer", "")
    assert out.read_text() == "from a pane"
    assert platform_commands("linux", {"PATH": str(bins)})[-1][1:] == ["-selection", "clipboard"]
