"""The state watcher on real directories: changes (also in a subdirectory made
after the watch began) reach their route, other routes stay quiet, and on Linux
no thread is started for it (inotify is read by the loop)."""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path

import pytest

from zirv_dash.runtime.inotify import TreeWatch
from zirv_dash.runtime.watch import Route, StateWatcher


async def _until(check: object, timeout: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not check():  # type: ignore[operator]
        if loop.time() > end:
            raise AssertionError("condition never held")
        await asyncio.sleep(0.01)


def test_changes_reach_their_route_only(tmp_path: Path) -> None:
    mail, other = tmp_path / "mail", tmp_path / "other"
    mail.mkdir()
    other.mkdir()
    hits: dict[str, int] = {"mail": 0, "other": 0}

    def bump(name: str) -> None:
        hits[name] += 1

    async def main() -> None:
        threads = threading.active_count()
        watcher = StateWatcher(lambda reason: None)
        watcher.add(Route("mail", mail, lambda p: p.endswith(".json"), lambda: bump("mail")))
        watcher.add(Route("other", other, lambda p: True, lambda: bump("other")))
        try:
            assert watcher.watching and watcher.settled()
            if sys.platform.startswith("linux"):
                assert threading.active_count() == threads  # no watcher thread
            (mail / "ignored.txt").write_text("x")
            (mail / "a.json").write_text("{}")
            await _until(lambda: hits["mail"] >= 1)
            # A directory made after the watch began, filled at once.
            sub = mail / "box"
            sub.mkdir()
            (sub / "b.json").write_text("{}")
            seen = hits["mail"]
            await _until(lambda: hits["mail"] > seen)
            (sub / "c.json").write_text("{}")
            seen = hits["mail"]
            await _until(lambda: hits["mail"] > seen)
            assert hits["other"] == 0
        finally:
            watcher.close()
            await asyncio.gather(*watcher.stopping, return_exceptions=True)

    asyncio.run(main())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")
def test_tree_watch_reports_paths_in_new_directories(tmp_path: Path) -> None:
    tree = TreeWatch([tmp_path])
    try:
        assert tree.read() == []
        sub = tmp_path / "new"
        sub.mkdir()
        (sub / "early.json").write_text("{}")
        changed = tree.read()
        assert str(sub) in changed
        # Written before or after the new directory's watch: reported either way.
        assert str(sub / "early.json") in changed
        (sub / "late.json").write_text("{}")
        assert str(sub / "late.json") in tree.read()
    finally:
        tree.close()
