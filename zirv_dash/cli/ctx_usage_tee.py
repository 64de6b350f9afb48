"""`zirv ctx usage tee [-- CMD...]`: Claude Code's statusLine command: record the windows, run CMD.

Claude Code runs the statusline command every few hundred milliseconds with a
JSON object on stdin (`context/collector.py` names its fields and source). The
tee reads it (at most `STDIN_CAP` bytes, and for at most `STDIN_SECS`, so a
missing or silent stdin never hangs it), records `rate_limits` to
`<state>/usage/anthropic.json`, then runs CMD, unchanged, with the same bytes
on its stdin, and passes its stdout through. It always exits 0 and always
prints at least one line: when CMD is missing, fails without output or prints
nothing, a short line of its own (the model and the windows' percents). Input
that is not the statusline's JSON is recorded as nothing. Kept light to import:
no argparse, no pydantic.
"""

from __future__ import annotations

import os
import sys
import time

STDIN_CAP = 1024 * 1024
STDIN_SECS = 1.0
INNER_SECS = 10.0
"""CMD is stopped after this long (Claude Code is waiting for the line)."""
OUTPUT_CAP = 64 * 1024


def read_stdin(fd: int = 0, cap: int = STDIN_CAP, secs: float = STDIN_SECS) -> bytes:
    """What is on `fd` until EOF, `cap` bytes or `secs`, whichever comes first."""
    import select

    try:
        if os.isatty(fd):
            return b""
    except OSError:
        return b""
    chunks: list[bytes] = []
    total = 0
    deadline = time.monotonic() + secs
    while total < cap:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        try:
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                break
            chunk = os.read(fd, min(65536, cap - total))
        except (OSError, ValueError):
            break
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def record(data: bytes) -> dict[str, object] | None:
    """Record the windows in the statusline input; returns the input object."""
    from zirv_dash.context import collector

    info = collector.statusline_info(data)
    if info is None:
        return None
    reading = collector.parse_statusline(info)
    if reading is not None:
        try:
            collector.record_collector(reading)
        except (OSError, ValueError):
            pass  # a statusline must never fail for our state dir
    return info


def run_inner(cmd: list[str], data: bytes) -> bytes:
    """CMD's stdout (capped), given `data` on stdin; b"" when it cannot run."""
    import subprocess

    try:
        done = subprocess.run(
            cmd, input=data, stdout=subprocess.PIPE, timeout=INNER_SECS, check=False
        )
        out = done.stdout
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout if isinstance(exc.stdout, bytes) else b""
    except (OSError, ValueError, subprocess.SubprocessError):
        return b""
    return out[:OUTPUT_CAP]


def own_line(info: dict[str, object] | None) -> str:
    """`Claude Sonnet 5 · 5h 62% · 7d 40%`, from what the input holds."""
    parts: list[str] = []
    model = info.get("model") if info else None
    name = model.get("display_name") or model.get("id") if isinstance(model, dict) else None
    if isinstance(name, str) and name.strip():
        parts.append(name.strip()[:60])
    limits = info.get("rate_limits") if info else None
    for key, label in (("five_hour", "5h"), ("seven_day", "7d")):
        window = limits.get(key) if isinstance(limits, dict) else None
        used = window.get("used_percentage") if isinstance(window, dict) else None
        if isinstance(used, int | float) and not isinstance(used, bool):
            parts.append(f"{label} {used:.0f}%")
    return " · ".join(parts) or "zirv"


def tee_main(argv: list[str]) -> int:
    """Always 0, always a line on stdout (see the module docstring)."""
    info: dict[str, object] | None = None
    out = b""
    try:
        cmd = argv[1:] if argv[:1] == ["--"] else list(argv)
        data = read_stdin()
        info = record(data)
        if cmd:
            out = run_inner(cmd, data)
    except BaseException:  # noqa: BLE001 - a statusline must always print
        pass
    try:
        if out.strip():
            sys.stdout.buffer.write(out if out.endswith(b"\n") else out + b"\n")
        else:
            sys.stdout.buffer.write((own_line(info) + "\n").encode("utf-8", "replace"))
        sys.stdout.flush()
    except BaseException:  # noqa: BLE001 - a closed stdout: nothing left to do
        pass
    return 0
