"""The web-driver packet framing `zirv session web`'s relay speaks with textual-serve."""

from __future__ import annotations

import json

import pytest
from textual_serve.app_service import AppService

from zirv_dash.session.web_packets import (
    DATA,
    META,
    PacketError,
    PacketReader,
    data_packet,
    encode_packet,
    meta_packet,
    parse_meta,
    split_complete,
)


def test_packets_are_framed_exactly_as_textual_serve_frames_them() -> None:
    # textual-serve's own encoder is the other end's truth.
    assert data_packet(b"hi\x1b[1m") == AppService.encode_packet(b"D", b"hi\x1b[1m")
    meta = {"type": "resize", "width": 120, "height": 40}
    assert meta_packet(meta) == AppService.encode_packet(b"M", json.dumps(meta).encode())
    assert data_packet(b"x")[:5] == b"D\x00\x00\x00\x01"


def test_a_stream_cut_anywhere_reads_back_as_the_same_packets() -> None:
    stream = (
        data_packet(b"echo hi\r")
        + meta_packet({"type": "resize", "width": 90, "height": 30})
        + data_packet(b"")
        + data_packet("é€😀".encode())
    )
    expected = PacketReader().feed(stream)
    assert [kind for kind, _ in expected] == [DATA, META, DATA, DATA]
    assert expected[0][1] == b"echo hi\r" and expected[3][1] == "é€😀".encode()
    for cut in range(len(stream) + 1):
        reader = PacketReader()
        got = reader.feed(stream[:cut]) + reader.feed(stream[cut:])
        assert got == expected, cut
        assert reader.pending == 0
    bytewise = PacketReader()
    assert [p for b in stream for p in bytewise.feed(bytes([b]))] == expected


def test_an_unfinished_packet_is_held_until_its_last_byte() -> None:
    reader = PacketReader()
    packet = data_packet(b"abcdef")
    assert reader.feed(packet[:-1]) == []
    assert reader.pending == len(packet) - 1
    assert reader.feed(packet[-1:]) == [(DATA, b"abcdef")]


def test_an_unknown_type_or_an_oversized_packet_is_refused() -> None:
    with pytest.raises(PacketError, match="unknown packet type"):
        PacketReader().feed(b"Z\x00\x00\x00\x00")
    with pytest.raises(PacketError, match="over the 16-byte limit"):
        PacketReader(limit=16).feed(b"D\x00\x00\x00\x11")  # refused from its header alone
    with pytest.raises(PacketError):
        encode_packet(b"Q", b"")


def test_meta_payloads_must_be_objects_with_a_type() -> None:
    assert parse_meta(b'{"type": "quit"}') == {"type": "quit"}
    for bad in (b"not json", b"[1, 2]", b'{"width": 3}', b'{"type": 7}', b"\xff\xfe"):
        with pytest.raises(PacketError):
            parse_meta(bad)


@pytest.mark.parametrize(
    ("data", "safe", "held"),
    [
        (b"plain text\r\n", b"plain text\r\n", b""),
        (b"ab\x1b", b"ab", b"\x1b"),
        (b"ab\x1b[", b"ab", b"\x1b["),
        (b"ab\x1b[38;5;2", b"ab", b"\x1b[38;5;2"),
        (b"ab\x1b[38;5;2m", b"ab\x1b[38;5;2m", b""),
        (b"ab\x1b[?1049h", b"ab\x1b[?1049h", b""),
        (b"\x1b]2;title", b"", b"\x1b]2;title"),
        (b"\x1b]2;title\x07", b"\x1b]2;title\x07", b""),
        (b"\x1b]2;title\x1b\\", b"\x1b]2;title\x1b\\", b""),
        (b"\x1bP+q544e", b"", b"\x1bP+q544e"),
        (b"\x1b(", b"", b"\x1b("),
        (b"\x1b(B", b"\x1b(B", b""),
        (b"\x1b7x", b"\x1b7x", b""),
        ("aé".encode()[:-1], b"a", "é".encode()[:1]),
        ("a€".encode()[:-1], b"a", "€".encode()[:2]),
        ("a😀".encode()[:-2], b"a", "😀".encode()[:2]),
        ("a😀".encode(), "a😀".encode(), b""),
    ],
)
def test_split_complete_holds_back_only_a_cut_sequence(
    data: bytes, safe: bytes, held: bytes
) -> None:
    assert split_complete(data) == (safe, held)


def test_a_held_sequence_completes_with_the_next_chunk() -> None:
    safe, held = split_complete(b"red \x1b[3")
    assert (safe, held) == (b"red ", b"\x1b[3")
    assert split_complete(held + b"1mtext") == (b"\x1b[31mtext", b"")


def test_a_runaway_string_is_not_held_forever() -> None:
    data = b"\x1b]52;c;" + b"A" * (70 * 1024)
    assert split_complete(data) == (data, b"")
