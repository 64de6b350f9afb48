"""Everything a model holds, for tests that hold a fast path to the general one."""

from __future__ import annotations

from zirv_dash.terminal import TerminalModel


def model_state(m: TerminalModel, *, records: bool = False) -> tuple[object, ...]:
    """The text, cursor, cells, pen, scrollback and rendered rows of `m`; with
    `records`, the scrollback's byte count and rendered lines too."""
    s = m._screen  # noqa: SLF001 - the cells, the pen and the records themselves
    state: tuple[object, ...] = (
        m.lines(),
        m.cursor,
        s.chars,
        s.attrs,
        s.wrapped,
        s.attr,
        s.last_char,
        list(s.history),
        [m.row_runs(y) for y in range(m.rows)],
    )
    if records:
        state += (m.history_bytes, [m.history_runs(i) for i in range(m.history_size)])
    return state
