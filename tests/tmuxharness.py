"""A private tmux server for end-to-end tests: the app runs in a real terminal."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

ZIRV = [sys.executable, "-m", "zirv_dash.cli.main"]
UI_FOOTER = re.compile(r" {3}(pid \d+|in-process session|no process)")
"""The footer's second segment: the focused pane's process, drawn by the UI only."""


def require_tmux() -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")


class Tmux:
    def __init__(self, workdir: Path, env: dict[str, str]) -> None:
        require_tmux()
        self.socket = f"zirv-test-{uuid.uuid4().hex[:8]}"
        self.workdir = workdir
        self.env = env
        self.mark = uuid.uuid4().hex
        self.env["ZIRV_TEST_MARK"] = self.mark

    def run(self, *args: str, check: bool = True) -> str:
        out = subprocess.run(
            ["tmux", "-L", self.socket, *args],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
        if check and out.returncode != 0:
            raise RuntimeError(f"tmux {args}: {out.stderr}")
        return out.stdout

    def start(self, command: list[str], width: int, height: int, name: str = "main") -> None:
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in self.env.items())
        line = f"env -i {exports} {shlex.join(command)}; echo EXITED $?; sleep 60"
        self.run(
            "new-session", "-d", "-s", name, "-x", str(width), "-y", str(height),
            "-c", str(self.workdir), line,
        )  # fmt: skip

    def keys(self, *keys: str, name: str = "main") -> None:
        self.run("send-keys", "-t", name, *keys)

    def text(self, *keys: str, name: str = "main") -> None:
        self.run("send-keys", "-t", name, "-l", *keys)

    def capture(self, name: str = "main") -> str:
        return self.run("capture-pane", "-p", "-t", name)

    def wait_for(self, needle: str, timeout: float = 15.0, name: str = "main") -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.capture(name)
            if needle in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{needle!r} never appeared; screen was:\n{screen}")

    def wait_gone(self, needle: str, timeout: float = 15.0, name: str = "main") -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.capture(name)
            if needle not in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{needle!r} never went away; screen was:\n{screen}")

    def quit(self, until: str = "EXITED 0", timeout: float = 20.0, name: str = "main") -> str:
        """`Ctrl+A q`, Enter on the quit dialog whenever it is drawn (the
        dashboard asks when a pane is not idle), and the screen once `until`
        shows (the command line's exit marker)."""
        self.keys("C-a", "q", name=name)
        deadline = time.monotonic() + timeout
        screen, confirmed = "", False
        while time.monotonic() < deadline:
            screen = self.capture(name)
            if until in screen:
                return screen
            if "quit zirv dash" in screen and not confirmed:
                self.keys("Enter", name=name)
                confirmed = True
            time.sleep(0.1)
        raise AssertionError(f"{until!r} never appeared after the quit; screen was:\n{screen}")

    def wait_dashboard(self, timeout: float = 15.0, name: str = "main") -> str:
        """The dashboard's own first frame: the footer names the focused pane's
        process, which the opening frame drawn before the UI loads cannot know
        (that frame shows the sidebar and the header already, but no UI runs
        yet: no mouse modes, no keys handled)."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.capture(name)
            if "SESSIONS" in screen and UI_FOOTER.search(screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"the dashboard never drew; screen was:\n{screen}")

    def marked_pids(self) -> list[int]:
        """Processes (other than tmux's own shell) that inherited this test's mark."""
        found = []
        needle = f"ZIRV_TEST_MARK={self.mark}".encode()
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                environ = (entry / "environ").read_bytes()
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if needle in environ.split(b"\0") and b"sleep\x0060" not in cmdline:
                if not cmdline.startswith(b"sh\x00-c") and b"EXITED" not in cmdline:
                    found.append(int(entry.name))
        return found

    def kill(self) -> None:
        self.run("kill-server", check=False)

    def pids_running(self, *words: bytes) -> list[int]:
        """Marked processes whose command line has every one of `words`."""
        found = []
        for pid in self.marked_pids():
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if all(word in cmdline for word in words):
                found.append(pid)
        return found


def eventually(check: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    """Until `check()` holds; fails naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def base_env(state: Path, home: Path) -> dict[str, str]:
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "VIRTUAL_ENV", "PYTHONPATH")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env.update(
        {
            "ZIRV_CTX_STATE_DIR": str(state),
            "ZIRV_HOME": str(home),
            "SHELL": "/bin/sh",
            "PS1": "$ ",
            "TERM": "xterm-256color",
            "ZIRV_DEMO_WORK_SECS": "0.3",
        }
    )
    env.setdefault("LANG", "C.UTF-8")
    # A private HOME: the machine's own dotfiles are not part of a test (an
    # interactive bash sourcing ~/.bashrc ran `pyenv rehash`, and a session
    # killed mid-rehash left a lock that stalled every later bash for a minute).
    private_home = home.parent / "home"
    private_home.mkdir(parents=True, exist_ok=True)
    env["HOME"] = str(private_home)
    return env
