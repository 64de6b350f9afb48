"""One file watcher for everything the engine reacts to on disk.

Mail, nudge markers, registry records, handover requests, the spawn channel and
the adapter gate files are each a route: a root directory, a filter on the
changed path, and a handler. A single `watchfiles` watcher covers every root
and dispatches each batch of changes by path, so the dashboard runs one watcher
however many concerns it has. Adding or removing a route restarts the watcher
with the new set of roots.

On Linux the watcher is inotify read by the event loop itself (`runtime.inotify`):
nothing runs while nothing changes. Elsewhere (or if inotify is refused) it is a
`watchfiles` watcher, whose thread wakes every STEP_MS to look at its stop flag,
and whose safety timeout calls the routes that asked for it every SAFETY_MS.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from zirv_dash.runtime.inotify import InotifyUnavailable, Overflow, TreeWatch

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
        self._tree: TreeWatch | None = None
        self._tree_loop: asyncio.AbstractEventLoop | None = None
        self._batch: list[str] = []
        self._debounce: asyncio.TimerHandle | None = None
        self._inotify_refused = False
        self.failed = False
        self.closed = False
        self.started_at = 0.0

    @property
    def watching(self) -> bool:
        if self.failed:
            return False
        if self._tree is not None:
            return True
        return self._task is not None and not self._task.done()

    def settled(self) -> bool:
        """Watching, and long enough that no change can have slipped past it:
        from then on the fallbacks on the tick can rest. inotify's watches are in
        place when the call that adds them returns; watchfiles sets up in its thread."""
        if self._tree is not None:
            return not self.failed
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
        self._close_tree()
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
        self.started_at = time.monotonic()
        if not self._inotify_refused and self._open_tree(routes):
            return
        self._stop = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._run(routes, self._stop))

    # -- inotify -----------------------------------------------------------------------

    def _open_tree(self, routes: list[Route]) -> bool:
        roots = sorted({r.root for r in routes})
        try:
            tree = TreeWatch(roots)
        except InotifyUnavailable as exc:
            log.info("inotify unavailable (%s); watching with watchfiles", exc)
            self._inotify_refused = True
            return False
        loop = asyncio.get_running_loop()
        self._tree, self._tree_loop = tree, loop
        loop.add_reader(tree.fd, self._readable, tree, routes)
        return True

    def _close_tree(self) -> None:
        tree, self._tree = self._tree, None
        if self._debounce is not None:
            self._debounce.cancel()
            self._debounce = None
        self._batch = []
        if tree is not None:
            if self._tree_loop is not None and not self._tree_loop.is_closed():
                self._tree_loop.remove_reader(tree.fd)
            tree.close()

    def _readable(self, tree: TreeWatch, routes: list[Route]) -> None:
        try:
            changed = tree.read()
        except Overflow:
            # Events were dropped: every route looks again (a sweep is idempotent).
            changed = [str(r.root) for r in routes]
        except OSError as exc:
            self._tree_failed(exc)
            return
        if not changed:
            return
        self._batch.extend(changed)
        if self._debounce is None:
            # Like watchfiles' debounce: a burst of writes is one dispatch.
            loop = self._tree_loop or asyncio.get_running_loop()
            self._debounce = loop.call_later(DEBOUNCE_MS / 1000, self._flush, routes)

    def _flush(self, routes: list[Route]) -> None:
        self._debounce = None
        batch, self._batch = self._batch, []
        if batch:
            self._dispatch(routes, batch)

    def _tree_failed(self, exc: OSError) -> None:
        log.warning("file watching failed: %s", exc)
        self._close_tree()
        self.failed = True
        self._on_failure(str(exc))

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
