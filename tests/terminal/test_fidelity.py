"""Replay recorded streams of real programs and compare with tmux's screen.

The streams and tmux's ``capture-pane -p`` of them are committed under
``data/``; ``regen_fidelity.py`` re-records them (it needs tmux and the
programs, this test does not).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from zirv_dash.terminal import Attr, TerminalModel, cell_width

DATA = Path(__file__).resolve().parent / "data"
CASES = sorted(p.stem for p in DATA.glob("*.json"))


def replay(stream: bytes, cols: int, rows: int, seed: int = 0) -> TerminalModel:
    """Feed in irregular chunks (like PTY reads) so sequences and UTF-8
    characters get split across feeds."""
    m = TerminalModel(cols, rows)
    rng = random.Random(seed)
    i = 0
    while i < len(stream):
        n = rng.choice((1, 7, 64, 1024, 4096, 65536))
        m.feed(stream[i : i + n])
        i += n
    return m


@pytest.mark.parametrize("name", CASES)
def test_matches_tmux(name: str) -> None:
    """At every checkpoint (each point where a key was typed, and the end)
    the visible text of every row and the cursor match tmux."""
    meta = json.loads((DATA / f"{name}.json").read_text())
    stream = (DATA / f"{name}.bin").read_bytes()
    failures = []
    for cp in meta["checkpoints"]:
        m = replay(stream[: cp["offset"]], meta["cols"], meta["rows"])
        got = m.lines()
        want = cp["lines"]
        diffs = [
            f"row {y:2}: tmux {w!r}\n        ours {g!r}"
            for y, (w, g) in enumerate(zip(want, got, strict=True))
            if w != g
        ]
        # tmux reports x == cols while a wrap is pending; our cursor is the
        # cell the UI draws it on, i.e. clamped to the last column.
        want_cursor = [min(cp["cursor"][0], meta["cols"] - 1), cp["cursor"][1]]
        if list(m.cursor) != want_cursor:
            diffs.append(f"cursor: tmux {cp['cursor']} ours {list(m.cursor)}")
        if diffs:
            failures.append(f"at byte {cp['offset']}:\n" + "\n".join(diffs))
    assert not failures, "\n".join(failures)


def _cells(m: TerminalModel, y: int) -> list[Attr]:
    """One Attr per cell of row ``y``."""
    out: list[Attr] = []
    for text, attr in m.row_runs(y):
        out.extend([attr] * cell_width(text))
    return out


STYLED = [n for n in CASES if "final_styled" in json.loads((DATA / f"{n}.json").read_text())]


@pytest.mark.parametrize("name", STYLED)
def test_attributes_match_tmux(name: str) -> None:
    """Colours and flags of every cell of the final screen match tmux's
    ``capture-pane -e`` (read back through a model of our own).  Cells after
    the last printed character of a row are not compared: tmux's capture
    does not carry the background of erased trailing cells."""
    meta = json.loads((DATA / f"{name}.json").read_text())
    cols, rows = meta["cols"], meta["rows"]
    m = replay((DATA / f"{name}.bin").read_bytes(), cols, rows)
    ref = TerminalModel(cols, rows)
    ref.feed("\r\n".join(meta["final_styled"]).encode())
    text = meta["checkpoints"][-1]["lines"]
    diffs = []
    for y in range(rows):
        used = cell_width(text[y])
        want, got = _cells(ref, y)[:used], _cells(m, y)[:used]
        if want != got:
            x = next(i for i, (a, b) in enumerate(zip(want, got, strict=True)) if a != b)
            diffs.append(f"row {y} col {x}: tmux {want[x]} ours {got[x]}")
    assert not diffs, "\n".join(diffs)
