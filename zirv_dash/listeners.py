"""A list of subscribers: add one (get back its unsubscribe), tell them all in order.

One subscriber's bug must not stop the others or the emitter: it is logged."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Generic, TypeVar

log = logging.getLogger("zirv.listeners")

E = TypeVar("E")


class Listeners(Generic[E]):
    def __init__(self) -> None:
        self._callbacks: list[Callable[[E], None]] = []

    def add(self, callback: Callable[[E], None]) -> Callable[[], None]:
        self._callbacks.append(callback)

        def remove() -> None:
            with contextlib.suppress(ValueError):
                self._callbacks.remove(callback)

        return remove

    def emit(self, event: E) -> None:
        for callback in list(self._callbacks):
            try:
                callback(event)
            except Exception:  # noqa: BLE001 - see the module docstring
                log.exception("subscriber failed on %s", type(event).__name__)

    def clear(self) -> None:
        self._callbacks.clear()
