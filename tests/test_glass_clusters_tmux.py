"""At the glass, in tmux 3.3a: rows with emoji sequences (a ZWJ family, a skin
tone, VS16, a flag) have every cell where a plain tmux pane has it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_glass_tmux import WIDTH, cells, run_sample, start_dashboard
from tests.tmuxharness import Tmux

pytestmark = [pytest.mark.tmux, pytest.mark.timeout(90)]

# The family last: its fourth joiner does not fit tmux's 21-byte cell and stays
# pending, glued onto the next non-ASCII character (tmux 3.3a, and the model).
# Each row is one printf, so one write: tmux 3.3a forgets a pending joiner at
# the end of each read, so a family split across two writes lands in a plain
# pane as 2 or 4 cells depending on how the reads fall.
SAMPLE = (
    r"""
printf 'G\360\237\221\215\360\237\217\275H|2\n'
printf 'E\342\235\244\357\270\217F|3\n'
printf 'C\360\237\207\272\360\237\207\270D|4\n'
printf 'A\360\237\221\250\342\200\215\360\237\221\251\342\200\215"""
    r"""\360\237\221\247\342\200\215\360\237\221\246B|1\n'
printf 'GLASS''-END\n'
"""
)


def positions(capture: str) -> list[tuple[int, str]]:
    """Cells from each sample row's first letter to its '|', and the row's marker."""
    model = cells(capture)
    out = []
    for y, line in enumerate(model.lines()):
        for marker, letter in zip("1234", "AGEC", strict=True):
            if line.endswith(f"|{marker}") and "printf" not in line:
                row = model._screen.chars[y]  # noqa: SLF001
                bar = max(i for i, c in enumerate(row) if c == "|")
                first = max(i for i in range(bar) if row[i] == letter)
                out.append((bar - first, marker))
    return out


def test_emoji_rows_keep_their_cells(tmux: Tmux, tmp_path: Path) -> None:
    script = tmp_path / "sample.sh"
    script.write_text(SAMPLE)
    tmux.start(["sh"], WIDTH, 40, name="plain")
    start_dashboard(tmux, COLORTERM="truecolor")
    plain = positions(run_sample(tmux, script, "plain"))
    ours = positions(run_sample(tmux, script, "main"))
    assert len(plain) == 4 and ours == plain
