"""A bounded Server-Sent Events reader over an async byte stream.

Bounds are the point: a line longer than `max_line`, a stream longer than
`max_bytes`, or invalid UTF-8 ends in a `ProviderError("bad_response")`
instead of memory growing without limit.
"""

from __future__ import annotations

import codecs
from collections.abc import AsyncIterator
from dataclasses import dataclass

from zirv_dash.native.protocol import ProviderError


@dataclass(frozen=True)
class SSEEvent:
    event: str
    data: str


async def read_events(
    chunks: AsyncIterator[bytes], *, max_bytes: int, max_line: int
) -> AsyncIterator[SSEEvent]:
    decoder = codecs.getincrementaldecoder("utf-8")()
    total = 0
    buffer = ""
    event = ""
    data: list[str] = []
    async for chunk in chunks:
        total += len(chunk)
        if total > max_bytes:
            raise ProviderError("bad_response", f"stream exceeded {max_bytes} bytes")
        try:
            buffer += decoder.decode(chunk)
        except UnicodeDecodeError as exc:
            raise ProviderError("bad_response", "stream is not UTF-8") from exc
        while True:
            cut = _line_end(buffer)
            if cut is None:
                break
            line, buffer = buffer[: cut[0]], buffer[cut[1] :]
            if not line:
                if data:
                    yield SSEEvent(event or "message", "\n".join(data))
                event, data = "", []
                continue
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "data":
                data.append(value)
            elif name == "event":
                event = value
        if len(buffer) > max_line or sum(map(len, data)) > max_line:
            raise ProviderError("bad_response", f"an event exceeded {max_line} bytes")
    # An event not closed by a blank line when the stream ends is discarded, as
    # the SSE spec says: it may be the first half of something never finished.


def _line_end(text: str) -> tuple[int, int] | None:
    """(end of line, start of next) for the first CRLF, LF or CR in `text`."""
    lf = text.find("\n")
    cr = text.find("\r", 0, lf if lf >= 0 else len(text))
    if cr < 0:
        return None if lf < 0 else (lf, lf + 1)
    if cr + 1 == len(text):
        return None  # a CR at the end may be the first half of CRLF
    return cr, cr + (2 if text[cr + 1] == "\n" else 1)
