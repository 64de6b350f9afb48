"""Re-wrapping rows at a new width: rows joined into logical lines by their
wrap flags, then cut again (pure list work, for `ResizeOps._reflow`)."""

from __future__ import annotations

from .attr import DEFAULT_ATTR, Attr
from .widths import lead_width

Line = tuple[list[str], list[Attr]]
Rows = tuple[list[list[str]], list[list[Attr]], list[bool]]


def logical_lines(
    src_c: list[list[str]],
    src_a: list[list[Attr]],
    src_w: list[bool],
    cur_row: int,
    cur_x: int,
) -> tuple[list[Line], int, int]:
    """The rows joined by their wrap flags, trailing default blanks dropped;
    with the cursor's line and offset in it (the cursor at row `cur_row`,
    cell `cur_x`)."""
    lines: list[Line] = []
    cur_line, cur_off = 0, 0
    acc_c: list[str] = []
    acc_a: list[Attr] = []
    last = len(src_c) - 1
    for i, (c, a, w) in enumerate(zip(src_c, src_a, src_w, strict=True)):
        if i == cur_row:
            cur_line, cur_off = len(lines), len(acc_c) + cur_x
        acc_c += c
        acc_a += a
        if w and i < last and acc_c and acc_c[-1] == " " and acc_a[-1] is DEFAULT_ATTR:
            nxt = src_c[i + 1][0] if src_c[i + 1] else ""
            if nxt and lead_width(nxt) == 2:
                # A wide character wrapped early: the blanks before it
                # were never written (the gap, cells a tab skipped).
                while acc_c and acc_c[-1] == " " and acc_a[-1] is DEFAULT_ATTR:
                    acc_c.pop()
                    acc_a.pop()
        if not w or i == last:
            while acc_c and acc_c[-1] == " " and acc_a[-1] is DEFAULT_ATTR:
                acc_c.pop()
                acc_a.pop()
            lines.append((acc_c, acc_a))
            acc_c, acc_a = [], []
    return lines, cur_line, cur_off


def rewrap(
    lines: list[Line], columns: int, cur_line: int, cur_off: int
) -> tuple[Rows, tuple[int, int]]:
    """The logical lines cut into rows of `columns` cells (a wide character
    never split: it moves down), and the cursor's (row, x) among them."""
    out_c: list[list[str]] = []
    out_a: list[list[Attr]] = []
    out_w: list[bool] = []
    cur = (0, 0)
    for li, (c, a) in enumerate(lines):
        n = len(c)
        pos = 0
        while True:
            end = min(pos + columns, n)
            if end < n and c[end] == "" and end - 1 > pos:
                end -= 1  # never split a wide character: it moves down
            row = c[pos:end]
            arow = a[pos:end]
            if len(row) < columns:
                row.extend([" "] * (columns - len(row)))
                arow.extend([DEFAULT_ATTR] * (columns - len(arow)))
            out_c.append(row)
            out_a.append(arow)
            out_w.append(end < n)
            if li == cur_line and (pos <= cur_off < end or end >= n):
                if cur_off >= pos:
                    cur = (len(out_c) - 1, min(cur_off - pos, columns - 1))
            if end >= n:
                break
            pos = end
    return (out_c, out_a, out_w), cur
