"""End to end in tmux: a hidden pane that finishes sends the outer terminal one
notification, read back from the bytes the app wrote (`pipe-pane`)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from tests.tmuxharness import ZIRV, Tmux

pytestmark = [pytest.mark.tmux, pytest.mark.timeout(90)]


def wait_bytes(path: Path, needle: bytes, timeout: float = 20.0) -> bytes:
    deadline = time.monotonic() + timeout
    data = b""
    while time.monotonic() < deadline:
        data = path.read_bytes() if path.exists() else b""
        if needle in data:
            return data
        time.sleep(0.1)
    raise AssertionError(f"{needle!r} never written; the app wrote {len(data)} bytes")


def quit_app(tmux: Tmux) -> None:
    tmux.quit("EXITED 0", timeout=20)


def run_demo(tmux: Tmux, tmp_path: Path, notify_mode: str) -> tuple[Path, str]:
    """Start the dashboard with a shell in front and a held demo pane behind;
    release the demo and wait for its ◆. Returns (captured bytes file, short)."""
    gate = tmp_path / "gate"
    captured = tmp_path / "outer.bin"
    tmux.env["ZIRV_DEMO_GATE"] = str(gate)
    tmux.env["ZIRV_CTX_DASH_NOTIFY"] = notify_mode
    # The app would see TMUX when run inside tmux; `env -i` drops it, so give it back.
    tmux.env["TMUX"] = "/tmp/zirv-test-tmux,1,0"
    tmux.start([*ZIRV, "chat", "--agent", "shell", "--pane", "demo:hold on"], 120, 40)
    tmux.run("pipe-pane", "-o", "-t", "main", f"cat >> {captured}")
    tmux.wait_dashboard()
    deadline = time.monotonic() + 20
    found = None
    while found is None and time.monotonic() < deadline:
        found = re.search(r"[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] ([0-9a-f]{8}) demo", tmux.capture())
        time.sleep(0.1)
    assert found, tmux.capture()
    gate.touch()
    tmux.wait_for(f"◆ {found.group(1)} done")
    return captured, found.group(1)


def test_osc_notification_through_tmux_passthrough_once(tmux: Tmux, tmp_path: Path) -> None:
    captured, short = run_demo(tmux, tmp_path, "osc")
    wanted = f"\x1bPtmux;\x1b\x1b]9;zirv: demo {short} done\x07\x1b\\".encode()
    wait_bytes(captured, wanted)
    tmux.keys("C-a", "2")  # look at it: seen, the episode ends without another notice
    tmux.wait_for(f"● {short}")
    quit_app(tmux)
    assert captured.read_bytes().count(b"]9;") == 1


def test_bell_mode_rings_the_tmux_window(tmux: Tmux, tmp_path: Path) -> None:
    # The test session is detached, so tmux flags even its current window on a BEL.
    captured, _ = run_demo(tmux, tmp_path, "bell")
    deadline = time.monotonic() + 20
    flag = ""
    while time.monotonic() < deadline:
        flag = tmux.run("display-message", "-p", "-t", "main", "#{window_bell_flag}")
        if flag.strip() == "1":
            break
        time.sleep(0.1)
    assert flag.strip() == "1"
    assert b"]9;" not in captured.read_bytes()
    quit_app(tmux)
