"""The SSE reader: any chunking of a stream gives the same events; bounds hold."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zirv_dash.native.protocol import ProviderError
from zirv_dash.native.sse import SSEEvent, read_events

STREAM = (
    b": comment\r\n"
    b'event: message_start\r\ndata: {"a": 1}\r\n\r\n'
    b"data: line one\ndata: line two\n\n"
    b"event: x\rdata: caf\xc3\xa9\r\r"
    b"data: tail"
)
EXPECTED = [
    SSEEvent("message_start", '{"a": 1}'),
    SSEEvent("message", "line one\nline two"),
    SSEEvent("x", "café"),
]  # "data: tail" never closed by a blank line: discarded


async def chunks(data: bytes, cuts: list[int]) -> AsyncIterator[bytes]:
    last = 0
    for cut in sorted(set(cuts)):
        yield data[last:cut]
        last = cut
    yield data[last:]


async def events(data: bytes, cuts: list[int], **bounds: int) -> list[SSEEvent]:
    limits = {"max_bytes": 1 << 20, "max_line": 1 << 16, **bounds}
    return [e async for e in read_events(chunks(data, cuts), **limits)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(STREAM)), max_size=12))
def test_any_chunking_gives_the_same_events(cuts: list[int]) -> None:
    assert asyncio.run(events(STREAM, cuts)) == EXPECTED


@pytest.mark.parametrize(
    ("data", "bounds", "words"),
    [
        (b"data: " + b"x" * 5000, {"max_line": 1000}, "an event exceeded"),
        (b"data: x\n\n" * 2000, {"max_bytes": 1000}, "stream exceeded"),
        (b"data: \xc3\x28\n\n", {}, "not UTF-8"),
    ],
)
def test_bounds(data: bytes, bounds: dict[str, int], words: str) -> None:
    with pytest.raises(ProviderError, match=words):
        asyncio.run(events(data, [7, 300], **bounds))
