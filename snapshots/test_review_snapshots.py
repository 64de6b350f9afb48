"""How the review views look: the grid of four demo panes, the palette, copy mode."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from snapshots.snaphelpers import press, quiet_demo, settled, snap_app

__all__ = ["quiet_demo"]

FOUR = [("demo", "add a login form"), ("demo", "fix the flaky test"), ("demo", "write docs")]


def then(*keys: str, count: int) -> Any:
    base = settled(count)

    async def run_before(pilot: Pilot[Any]) -> None:
        await base(pilot)
        await press(pilot, *keys)
        await pilot.pause(0.4)

    return run_before


def test_grid_four_demo_panes_160x48(snap_compare: Any) -> None:
    assert snap_compare(
        snap_app(extra=FOUR),
        terminal_size=(160, 48),
        run_before=then("ctrl+a", "g", count=4),
    )


def test_palette(snap_compare: Any) -> None:
    assert snap_compare(
        snap_app(), terminal_size=(120, 40), run_before=then("ctrl+a", "p", count=1)
    )


def test_palette_filtered(snap_compare: Any) -> None:
    assert snap_compare(
        snap_app(), terminal_size=(120, 40), run_before=then("ctrl+a", "p", *"scrl", count=1)
    )


def test_copy_mode_search(snap_compare: Any) -> None:
    # Pane 2 has worked and gone idle (settled: were it still at the end of its turn when
    # copy mode covers it, it would finish unseen, ◆); search back for "src", select
    # from the match to the line's end.
    keys = ("ctrl+a", "2", "ctrl+a", "left_square_bracket", "question_mark", *"src")
    keys += ("enter", "v", "end")
    run = then(*keys, count=2)
    assert snap_compare(snap_app(extra=FOUR[:1]), terminal_size=(120, 40), run_before=run)
