"""One file watcher for everything the engine reacts to on disk.

Mail, nudge markers, registry records, handover requests, the spawn channel and
the adapter gate files are each a route: a root directory, a filter on the
changed path, and a handler. A single `watchfiles` watcher covers every root
and dispatches each batch of changes by path, so the dashboard runs one watcher
thread however many concerns it has. Adding or removing a route restarts the
watcher with the new set of roots (through its `stop_event`, never a poll).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("zirv.watch")

DEBOUNCE_MS = 50
STEP_MS = 250
STARTUP_SECS = 2.0
"""A watcher may miss changes while it sets up: until then, fallbacks still poll."""
SAFETY_MS = 30_000
"""Even with nothing changing, routes that asked for it get a call this often
(a missed event costs at most this)."""


@dataclass(frozen=True)
class Route:
    name: str
    root: Path
    relevant: Callable[[str], bool]
    handler: Callable[[], None]
    safety: bool = False
    """Also call the handler when the watcher's safety timeout passes."""


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class StateWatcher:
    def __init__(self, on_failure: Callable[[str], None]) -> None:
        self._routes: dict[str, Route] = {}
        self._task: asyncio.Task[None] | None = None
        self.stopping: set[asyncio.Task[None]] = set()
        """Watcher tasks told to stop, until they have (the engine awaits them)."""
        self._stop: asyncio.Event | None = None
        self._on_failure = on_failure
        self.failed = False
        self.closed = False
        self.started_at = 0.0

    @property
    def watching(self) -> bool:
        return self._task is not None and not self._task.done() and not self.failed

    def settled(self) -> bool:
        """Watching, and long enough that no change can have slipped past it:
        from then on the fallbacks on the tick can rest."""
        return self.watching and time.monotonic() - self.started_at >= STARTUP_SECS

    def add(self, route: Route) -> None:
        self._routes[route.name] = route
        self._restart()

    def remove(self, name: str) -> None:
        if self._routes.pop(name, None) is not None:
            self._restart()

    def close(self) -> None:
        self.closed = True
        self._routes.clear()
        self._halt()

    def _halt(self) -> None:
        if self._stop is not None:
            self._stop.set()
        task = self._task
        if task is not None and not task.done():
            task.cancel()
            self.stopping.add(task)
            task.add_done_callback(self.stopping.discard)
        self._task = None
        self._stop = None

    def _restart(self) -> None:
        self._halt()
        if self.closed or self.failed:
            return
        routes = [r for r in self._routes.values() if r.root.is_dir()]
        if not routes:
            return
        self._stop = asyncio.Event()
        self.started_at = time.monotonic()
        self._task = asyncio.get_running_loop().create_task(self._run(routes, self._stop))

    async def _run(self, routes: list[Route], stop: asyncio.Event) -> None:
        try:
            from watchfiles import awatch

            roots = sorted({str(r.root) for r in routes})
            async for changes in awatch(
                *roots,
                debounce=DEBOUNCE_MS,
                step=STEP_MS,
                rust_timeout=SAFETY_MS,
                yield_on_timeout=True,
                stop_event=stop,
            ):
                self._dispatch(routes, [path for _, path in changes])
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - the fallback tick still works
            log.warning("file watching failed: %s", exc)
            self.failed = True
            self._on_failure(str(exc))

    @staticmethod
    def _dispatch(routes: list[Route], changed: list[str]) -> None:
        for route in routes:
            root = str(route.root)
            hit = any(_under(p, root) and route.relevant(p) for p in changed)
            if hit or (not changed and route.safety):
                try:
                    route.handler()
                except Exception:  # noqa: BLE001 - one route's bug must not stop the others
                    log.exception("watch route %s", route.name)
