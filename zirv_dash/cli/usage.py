"""A usage error and the terminal's width: what the `zirv ctx` parser (`ctx_args`) and
the verbs that parse nothing (`ctx_common`) share, below both so neither imports the
other's way up."""

from __future__ import annotations

import os
import sys


class UsageError(Exception):
    pass


def terminal_columns() -> int:
    """`shutil.get_terminal_size().columns`, without importing `shutil` (with its
    compression modules): `COLUMNS` when a positive number, else the width of
    the terminal on stdout, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    stdout = sys.__stdout__
    try:
        return (os.get_terminal_size(stdout.fileno()).columns or 80) if stdout else 80
    except (AttributeError, ValueError, OSError):  # closed, detached, not a terminal
        return 80
