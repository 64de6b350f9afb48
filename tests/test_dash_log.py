"""The dashboard log is private and says what a user needs, not every file event."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import logging
from zirv_dash.cli import chat
chat.setup_logging()
logging.getLogger("watchfiles.main").info("3 changes detected")
logging.getLogger("zirv.dashboard").info("pane 1234abcd started")
logging.shutdown()
"""


def test_dash_log_is_0600_and_quiet_about_file_events(tmp_path: Path) -> None:
    state = tmp_path / "state"
    env = {"ZIRV_CTX_STATE_DIR": str(state), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    subprocess.run([sys.executable, "-c", SCRIPT], env=env, check=True, timeout=30)
    log = state / "logs" / "dash.log"
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    assert stat.S_IMODE(log.parent.stat().st_mode) == 0o700
    text = log.read_text()
    assert "pane 1234abcd started" in text
    assert "changes detected" not in text
