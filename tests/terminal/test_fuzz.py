"""``TerminalModel.feed`` never raises and never breaks the screen's shape.

* ``test_fuzz_100k_sequences``: one seeded loop feeding 100,000+ generated
  sequences -- random and malformed CSI/OSC/DCS/APC/ESC, controls, valid and
  invalid UTF-8, wide and combining characters, and mutated slices of the
  recorded real-program streams (cut at random points, bytes flipped,
  inserted, dropped) -- in random chunk sizes, with resizes and alternate
  screen switches in between, checking invariants as it goes.
* hypothesis tests on arbitrary bytes and on token soups.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zirv_dash.terminal import Attr, TerminalModel
from zirv_dash.terminal.screen import render_cells
from zirv_dash.terminal.widths import cell_width

DATA = Path(__file__).resolve().parent / "data"
STREAMS = [p.read_bytes() for p in sorted(DATA.glob("*.bin"))]


def cells(text: str) -> int:
    return cell_width(text)


def check(m: TerminalModel) -> None:
    lines = m.lines()
    assert len(lines) == m.rows
    x, y = m.cursor
    assert 0 <= x < m.columns and 0 <= y < m.rows
    for r in range(m.rows):
        runs = m.row_runs(r)
        assert sum(cells(t) for t, _ in runs) == m.columns, (r, runs)
        assert all(isinstance(a, Attr) for _, a in runs)
        raw = m._screen.chars[r]
        if "\0" not in "".join(raw) and render_cells(raw) is raw:
            # no DEC line drawing, no half-erased wide characters: the
            # rendered text is the text
            assert "".join(t for t, _ in runs).rstrip(" ") == lines[r]
    for i in {0, m.history_size - 1, m.history_size // 2}:
        if 0 <= i < m.history_size:
            runs = m.history_runs(i)
            assert sum(cells(t) for t, _ in runs) == m.columns, (i, runs)
            assert isinstance(m.history_text(i), str)
    assert isinstance(m.take_replies(), bytes)
    assert isinstance(m.title, str)
    m.take_dirty()


PRIVATE = ["", "?", ">", "<", "=", "?>", "1?"]
FINALS = [chr(c) for c in range(0x40, 0x7F)]
INTERS = ["", "", "", " ", "$", "!", "'", '"', "#", "%"]
WEIRD = ["中", "文", "🙂", "e\u0301", "\u200d", "\ufe0f", "\u0300", "\x9b", "\x9c", "ｱ", "─"]


def rand_params(rng: random.Random) -> str:
    n = rng.choice((0, 1, 1, 2, 3, 5, 12))
    parts = []
    for _ in range(n):
        k = rng.random()
        if k < 0.6:
            parts.append(str(rng.randint(0, 300)))
        elif k < 0.7:
            parts.append("")
        elif k < 0.8:
            parts.append(str(rng.randint(0, 10**12)))
        else:
            parts.append(":".join(str(rng.randint(0, 300)) for _ in range(rng.randint(1, 6))))
    return rng.choice((";", ":")).join(parts) if rng.random() < 0.1 else ";".join(parts)


def rand_sequence(rng: random.Random) -> bytes:
    k = rng.random()
    if k < 0.30:
        s = "\x1b[" + rng.choice(PRIVATE) + rand_params(rng) + rng.choice(INTERS)
        s += rng.choice(FINALS) if rng.random() < 0.95 else ""
    elif k < 0.40:
        s = "\x1b[" + rand_params(rng) + "m"
    elif k < 0.50:
        body = "".join(rng.choice("0128;?:abc\x07\x1b\\ /rgb") for _ in range(rng.randint(0, 20)))
        s = "\x1b]" + body + rng.choice(("\x07", "\x1b\\", "", "\x9c", "\x18"))
    elif k < 0.57:
        s = (
            "\x1b"
            + rng.choice("P_^X")
            + "".join(rng.choice("q+$|0123abc;\x07\x1b") for _ in range(rng.randint(0, 30)))
        )
        s += rng.choice(("\x1b\\", "", "\x07"))
    elif k < 0.65:
        s = "\x1b" + rng.choice(("", "(", ")", "#", "%", " ")) + chr(rng.randint(0x20, 0x7E))
    elif k < 0.75:
        s = "".join(chr(rng.randint(0, 0x1F)) for _ in range(rng.randint(1, 4)))
    elif k < 0.85:
        s = "".join(rng.choice(WEIRD) for _ in range(rng.randint(1, 6)))
    elif k < 0.92:
        s = "".join(chr(rng.randint(0x20, 0x7E)) for _ in range(rng.randint(1, 40)))
    else:
        return bytes(rng.randint(0, 255) for _ in range(rng.randint(1, 12)))
    return s.encode("utf-8", "surrogatepass")


def mutate_stream(rng: random.Random) -> bytes:
    data = rng.choice(STREAMS)
    a = rng.randrange(len(data))
    chunk = bytearray(data[a : a + rng.randint(1, 400)])
    for _ in range(rng.randint(0, 4)):
        if not chunk:
            break
        op = rng.random()
        pos = rng.randrange(len(chunk))
        if op < 0.4:
            chunk[pos] = rng.randint(0, 255)
        elif op < 0.7:
            chunk.insert(pos, rng.choice((0x1B, 0x5B, 0x3B, 0x07, 0x9C, rng.randint(0, 255))))
        else:
            del chunk[pos]
    return bytes(chunk)


def test_fuzz_100k_sequences() -> None:
    rng = random.Random(20261129)
    sizes = [(80, 24), (1, 1), (2, 3), (7, 5), (40, 10), (120, 40)]
    models = [TerminalModel(c, r, scrollback_bytes=rng.choice((0, 500, 50_000))) for c, r in sizes]
    total = 0
    t0 = time.monotonic()
    while total < 110_000:
        m = models[total % len(models)]
        batch = []
        for _ in range(50):
            if STREAMS and rng.random() < 0.25:
                batch.append(mutate_stream(rng))
            else:
                batch.append(rand_sequence(rng))
        blob = b"".join(batch)
        total += len(batch)
        i = 0
        while i < len(blob):  # random PTY-read-like splits
            n = rng.randint(1, 300)
            m.feed(blob[i : i + n])
            i += n
        if rng.random() < 0.02:
            m.resize(rng.randint(1, 130), rng.randint(1, 45))
        if rng.random() < 0.02:
            m.feed(rng.choice((b"\x1b[?1049h", b"\x1b[?1049l", b"\x1b[?47h", b"\x1b[?47l")))
        if total % 2000 < 50:
            check(m)
    for m in models:
        check(m)
    assert time.monotonic() - t0 < 120


def test_recorded_streams_cut_at_random_points() -> None:
    rng = random.Random(7)
    for data in STREAMS:
        for _ in range(5):
            cut = rng.randrange(len(data) + 1)
            m = TerminalModel(rng.randint(1, 120), rng.randint(1, 40))
            m.feed(data[cut:])  # starts mid-sequence
            m.feed(data[:cut])
            check(m)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=3000), st.integers(1, 100), st.integers(1, 30))
def test_arbitrary_bytes(data: bytes, cols: int, rows: int) -> None:
    m = TerminalModel(cols, rows, scrollback_bytes=2000)
    m.feed(data)
    check(m)


TOKENS = [
    b"\x1b[",
    b"\x1b]",
    b"\x1bP",
    b"\x1b_",
    b"\x1b\\",
    b"\x07",
    b";",
    b":",
    b"?",
    b">",
    b"1",
    b"38",
    b"2",
    b"5",
    b"255",
    b"m",
    b"H",
    b"J",
    b"K",
    b"L",
    b"M",
    b"P",
    b"@",
    b"r",
    b"h",
    b"l",
    b"1049",
    b"2026",
    b"\r\n",
    b"\n",
    b"\t",
    b"\x08",
    b"x",
    "中".encode(),
    "\u0301".encode(),
    b"\xe4\xb8",
    b"\xff",
    b"$p",
    b" q",
    b"\x1b(0",
    b"\x1b(B",
    b"\x0e",
    b"\x0f",
    b"\x1b7",
    b"\x1b8",
    b"\x1bM",
    b"\x1bc",
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(TOKENS), max_size=300),
    st.integers(1, 30),
    st.integers(1, 10),
    st.lists(st.integers(1, 50), min_size=1, max_size=20),
)
def test_token_soup(tokens: list[bytes], cols: int, rows: int, splits: list[int]) -> None:
    m = TerminalModel(cols, rows, scrollback_bytes=300)
    blob = b"".join(tokens)
    i = k = 0
    while i < len(blob):
        n = splits[k % len(splits)]
        m.feed(blob[i : i + n])
        i += n
        k += 1
    check(m)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.one_of(
            st.sampled_from(TOKENS),
            st.tuples(st.integers(1, 40), st.integers(1, 12)),
        ),
        max_size=120,
    ),
)
def test_resizes_between_output(ops: list[bytes | tuple[int, int]]) -> None:
    """Reflow on resize keeps every invariant, on both screens."""
    m = TerminalModel(20, 6, scrollback_bytes=2000)
    for op in ops:
        if isinstance(op, tuple):
            m.resize(*op)
            assert (m.columns, m.rows) == op
        else:
            m.feed(op * 3)
    check(m)
