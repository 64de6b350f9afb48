"""The idempotency rule's memory: the first answer per (method, key)."""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Awaitable, Callable
from typing import Any

from zirv_dash.session.protocol import ErrorInfo

Answer = tuple[bool, Any, ErrorInfo | None]
"""A handled request: ok, its result (plain data), or the refusal."""
IDEMPOTENCY_KEYS = 4096


class IdempotencyCache:
    """The first answer per (method, key), oldest forgotten first. A retry while
    the first attempt still runs waits for that attempt's answer."""

    def __init__(self, size: int = IDEMPOTENCY_KEYS) -> None:
        self._size = size
        self._answers: collections.OrderedDict[tuple[str, str], asyncio.Future[Answer]] = (
            collections.OrderedDict()
        )

    async def run(self, method: str, key: str, work: Callable[[], Awaitable[Answer]]) -> Answer:
        slot = (method, key)
        known = self._answers.get(slot)
        if known is not None:
            return await asyncio.shield(known)
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._answers[slot] = future
        while len(self._answers) > self._size:
            self._answers.popitem(last=False)
        try:
            answer = await work()
        except BaseException:
            # Cancelled before it answered: nothing to replay, a retry runs again.
            self._answers.pop(slot, None)
            future.cancel()
            raise
        future.set_result(answer)
        return answer
