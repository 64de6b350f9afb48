"""The live dashboard's mail sweep meets hostile mailbox files (Pilot, real demo panes).

A 300 MB file, a FIFO and a symlink to /dev/zero dropped into the mailbox must
not freeze the dashboard, be read, or stop real mail from being delivered.
Bytes read are measured with the kernel's own counter (`rchar` in
/proc/self/io), so a whole read of the big file cannot hide.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.apphelpers import dash_screen, make_app, screen_text, wait_for
from zirv_dash.mail import mailbox as mail
from zirv_dash.panes.pane import Pane

pytestmark = pytest.mark.timeout(60)

SENDER = "abcd1234-0000-4000-8000-00000000beef"
HUGE = 300 * 1024 * 1024


def _bytes_read() -> int:
    with open("/proc/self/io") as handle:
        for line in handle:
            if line.startswith("rchar:"):
                return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


class LoopGaps:
    """The longest the event loop went without running a 10 ms timer."""

    def __init__(self) -> None:
        self.last = time.monotonic()
        self.worst = 0.0

    def tick(self) -> None:
        now = time.monotonic()
        self.worst = max(self.worst, now - self.last)
        self.last = now


@pytest.mark.serial  # measures loop stalls: not beside another worker
async def test_hostile_mailbox_files_are_never_read_and_mail_still_arrives(
    tmp_path: Path,
) -> None:
    app = make_app(
        tmp_path, agent="demo", extra=[("demo", None)], flags={"dash": {"idle_quiet_ms": 300}}
    )
    app.options.manage_state = True
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: len(dash.panes) == 2 and all(p.is_idle() for p in dash.panes))
        worker: Pane = dash.panes[1]
        await wait_for(pilot, lambda: screen.engine.watcher.watching)
        box = mail.mailbox_dir(dash.slug)
        gaps = LoopGaps()
        timer = app.set_interval(0.01, gaps.tick)
        before = _bytes_read()
        with open(box / "1600000000-huge0000.md", "wb") as handle:
            handle.truncate(HUGE)
        os.mkfifo(box / "1600000001-fifo0000.md")
        (box / "1600000002-zero0000.md").symlink_to("/dev/zero")
        mail.store(
            dash.slug,
            "real mail after the junk",
            from_session=SENDER,
            from_agent="claude",
            to_session=worker.session_id,
        )
        await wait_for(
            pilot,
            lambda: "real mail after the junk" in screen_text(worker).replace("\n", ""),
            timeout=30,
        )
        timer.stop()
        read = _bytes_read() - before
        assert read < 16 * 1024 * 1024, f"{read} bytes read during the sweep"
        # Generous for a loaded 2-core machine; reading the big file on the
        # loop cost 2-4.7 s per arrival.
        assert gaps.worst < 1.0, f"event loop stalled {gaps.worst:.2f}s"
        for name in ("1600000000-huge0000.md", "1600000001-fifo0000.md"):
            assert (box / name).exists()  # reported, never deleted
