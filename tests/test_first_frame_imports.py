"""What the dashboard's first frame imports: `zirv chat` on a real PTY, in a
fresh interpreter, stopped right after its first frame (the screen's
after-refresh callback), naming the modules loaded by then. Mail, handovers,
context windows, pricing and the native engine start after that frame
(ARCHITECTURE.md, "The first frame's import graph"); a module of them loaded
before it is the regression, whatever the machine's speed."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

DEFERRED = (
    "zirv_dash.context.pricing",
    "zirv_dash.context.native",
    "zirv_dash.context.session_watch",
    "zirv_dash.context.limits",
    "zirv_dash.native.engine",
    "zirv_dash.handover.swap",
    "zirv_dash.runtime.context_ctl",
    "zirv_dash.runtime.mail_ctl",
    "zirv_dash.runtime.swaps",
    "zirv_dash.mail.delivery",
    "zirv_dash.clipboard",
    "screens.help",  # built a second after the first frame (screens.help_warmup)
    "screens.dialog",
    "sqlite3",
    "hashlib",
)
"""Not needed to draw the first frame: each is imported when first used."""

_PROBE = """\
import json, sys
sys.argv[0] = "zirv"
import screens.dashboard as dashboard  # what on_mount imports anyway
original = dashboard.DashboardScreen._start_initial_panes
def first_frame(self):
    with open({out!r}, "w") as f:
        json.dump(sorted(sys.modules), f)
    original(self)
    self.app.exit(0)
dashboard.DashboardScreen._start_initial_panes = first_frame
from zirv_dash.cli.main import main
sys.exit(main(["chat", "--agent", "demo"]))
"""


def run_to_first_frame(tmp_path: Path) -> set[str]:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    out = tmp_path / "modules.json"
    env = {**os.environ, "HOME": str(tmp_path / "home"), "TERM": "xterm-256color"}
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    child = subprocess.Popen(
        [sys.executable, "-c", _PROBE.format(out=str(out))],
        cwd=repo,
        env=env,
        stdin=follower,
        stdout=follower,
        stderr=follower,
        start_new_session=True,
    )
    os.close(follower)
    deadline = time.monotonic() + 45
    try:
        # Drain the terminal (the UI blocks on a full PTY) until the process ends.
        while child.poll() is None and time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 0.2)
            if ready:
                try:
                    os.read(leader, 65536)
                except OSError:
                    break
        child.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        os.close(leader)
    assert out.exists(), "the dashboard never drew its first frame"
    return set(json.loads(out.read_text()))


def test_the_first_frame_imports_none_of_the_deferred_services(tmp_path: Path) -> None:
    modules = run_to_first_frame(tmp_path)
    assert "textual" in modules and "zirv_dash.runtime.engine" in modules  # it did start
    early = sorted(m for m in modules if any(m == d or m.startswith(d + ".") for d in DEFERRED))
    assert early == []
