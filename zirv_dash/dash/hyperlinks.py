"""Following a pane's OSC 8 hyperlinks: which link a cell holds, and opening one.

Only ``http``, ``https`` and ``file`` links are opened, with the platform's
opener (``xdg-open``, ``open`` on macOS), after the user confirmed the URI
(the dashboard asks; nothing here does). Anything else a program may link
to (``ssh:``, ``javascript:``, a custom scheme) is refused with a reason.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from typing import Protocol

from zirv_dash.terminal import Attr, cell_width
from zirv_dash.terminal.links import Link

SCHEMES = ("http", "https", "file")
OPEN_TIMEOUT = 20.0


class RunsSource(Protocol):
    """What is read of a terminal model: its styled runs, screen and scrollback."""

    @property
    def history_size(self) -> int: ...
    @property
    def rows(self) -> int: ...
    def row_runs(self, y: int) -> list[tuple[str, Attr]]: ...
    def history_runs(self, line: int) -> list[tuple[str, Attr]]: ...


def link_at(model: RunsSource, line: int, col: int) -> Link | None:
    """The link of the cell at absolute ``line`` (scrollback, then screen) and ``col``."""
    history = model.history_size
    if line < 0 or line >= history + model.rows or col < 0:
        return None
    runs = model.history_runs(line) if line < history else model.row_runs(line - history)
    x = 0
    for text, attr in runs:
        x += cell_width(text)
        if col < x:
            return attr.link
    return None


def refusal(uri: str) -> str | None:
    """Why ``uri`` is not opened, or None when it may be."""
    head, sep, _ = uri.partition(":")
    if not sep or head.lower() not in SCHEMES:
        return f"links: not opening {head.lower() or 'a link'}: links (only http, https and file)"
    return None


def opener(platform: str = sys.platform) -> str | None:
    """The command that opens a URI here, or None when there is none."""
    name = "open" if platform == "darwin" else "xdg-open"
    return shutil.which(name)


def open_uri(uri: str, command: str | None = None) -> str | None:
    """Open an allowed ``uri``; returns an error line, or None when it was handed over.

    Blocking (run it on a worker thread): ``xdg-open`` and ``open`` return
    once the browser or viewer has it. The opener runs in its own session with
    no terminal: it must never draw over the dashboard or be stopped with it."""
    why = refusal(uri)
    if why is not None:
        return why
    command = command or opener()
    if command is None:
        return "links: no xdg-open or open to open links with"
    try:
        done = subprocess.run(  # noqa: S603 - a fixed opener; the URI is one argument
            [command, uri],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            timeout=OPEN_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None  # still running: it has the URI (a browser started in the foreground)
    except OSError as exc:
        return f"links: {command} failed: {exc.strerror or exc}"
    if done.returncode != 0:
        return f"links: {command} could not open {uri[:80]} (exit {done.returncode})"
    return None
