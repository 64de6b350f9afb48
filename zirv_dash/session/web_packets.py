"""Textual's web-driver stdio protocol, as `textual-serve` speaks it to the
process it runs per browser connection (its `app_service.py`; textual's
`drivers/web_driver.py` is the other end we stand in for).

The process first writes `PRELUDE` on stdout, then packets both ways: one type
byte (`D` terminal bytes, `M` a JSON meta object, `P` a packed structure we
never send), a 4-byte big-endian payload length, the payload. Browser keys come
in as `D` packets (UTF-8 from xterm.js), resizes/focus/quit as `M` packets.

`split_complete` keeps an escape sequence or a UTF-8 character that a PTY read
cut in two from being interleaved with bytes the relay adds itself.
"""

from __future__ import annotations

import json
import re
from typing import Any

PRELUDE = b"__GANGLION__\n"
"""What textual-serve waits for before it reads packets (else: "failed to start")."""
DATA = b"D"
META = b"M"
PACKED = b"P"
KINDS = frozenset({DATA, META, PACKED})
HEADER = 5
MAX_PACKET = 16 * 1024 * 1024
"""The largest packet accepted: above what one browser message can be (aiohttp's
4 MiB limit), so only a broken stream ends the relay."""
MAX_HELD = 64 * 1024
"""An unfinished escape sequence longer than this is let through as it is."""

Packet = tuple[bytes, bytes]


class PacketError(Exception):
    """The stream is not the web-driver protocol; the message says how."""


def encode_packet(kind: bytes, payload: bytes) -> bytes:
    if kind not in KINDS:
        raise PacketError(f"unknown packet type {kind!r}")
    return kind + len(payload).to_bytes(4, "big") + payload


def data_packet(payload: bytes) -> bytes:
    return encode_packet(DATA, payload)


def meta_packet(meta: dict[str, Any]) -> bytes:
    return encode_packet(META, json.dumps(meta).encode("utf-8"))


class PacketReader:
    """Packets from a byte stream fed in arbitrary pieces."""

    def __init__(self, limit: int = MAX_PACKET) -> None:
        self._buffer = bytearray()
        self._limit = limit

    def feed(self, data: bytes) -> list[Packet]:
        self._buffer += data
        packets: list[Packet] = []
        while len(self._buffer) >= HEADER:
            kind = bytes(self._buffer[:1])
            if kind not in KINDS:
                raise PacketError(f"unknown packet type {kind!r}")
            size = int.from_bytes(self._buffer[1:HEADER], "big")
            if size > self._limit:
                raise PacketError(f"a {size}-byte packet is over the {self._limit}-byte limit")
            if len(self._buffer) < HEADER + size:
                break
            packets.append((kind, bytes(self._buffer[HEADER : HEADER + size])))
            del self._buffer[: HEADER + size]
        return packets

    @property
    def pending(self) -> int:
        """Bytes of an unfinished packet held."""
        return len(self._buffer)


def parse_meta(payload: bytes) -> dict[str, Any]:
    """A meta packet's object; PacketError if it is not a JSON object with a `type`."""
    try:
        meta = json.loads(payload)
    except (ValueError, UnicodeDecodeError) as exc:
        raise PacketError(f"meta packet is not JSON: {exc}") from exc
    if not isinstance(meta, dict) or not isinstance(meta.get("type"), str):
        raise PacketError("meta packet is not an object with a string `type`")
    return meta


def split_complete(data: bytes) -> tuple[bytes, bytes]:
    """(`data` up to a point where the terminal is between sequences, the held rest)."""
    cut = _escape_start(data)
    if cut is None:
        cut = _utf8_start(data)
    if cut is None or len(data) - cut > MAX_HELD:
        return data, b""
    return data[:cut], data[cut:]


_CSI_TAIL = re.compile(rb"\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]")
_ESC_TAIL = re.compile(rb"[\x20-\x2f]*[\x30-\x7e]")
_STRING_INTRODUCERS = b"]PX^_"


def _escape_start(data: bytes) -> int | None:
    """Where an unfinished escape sequence at the end of `data` starts, if any."""
    start = data.rfind(b"\x1b")
    if start < 0:
        return None
    if start == len(data) - 1:
        return start
    body = data[start + 1 :]
    if body[:1] == b"\\":  # ST: the string it ends is complete
        return None
    if body[:1] == b"[":
        return None if _CSI_TAIL.match(body) else start
    if body[:1] and body[0] in _STRING_INTRODUCERS:  # OSC/DCS/SOS/PM/APC: until ST (or BEL)
        return None if body[0] == 0x5D and b"\x07" in body else start
    return None if _ESC_TAIL.match(body) else start


def _utf8_start(data: bytes) -> int | None:
    """Where a UTF-8 character cut off at the end of `data` starts, if any."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:
            return None
        if byte >= 0xC0:  # a lead byte: how long should its character be?
            need = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return len(data) - back if back < need else None
    return None
