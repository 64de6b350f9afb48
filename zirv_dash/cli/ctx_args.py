"""argparse for the `zirv ctx` verbs: a parser that reports usage errors as exit
code 2 without sys.exit, its help width found without `shutil`.

Apart from `ctx_common` so a verb that needs no parser (`ctx hook stop`, a plain
`ctx send`, see `flags`) never imports argparse, with gettext and locale.
"""

from __future__ import annotations

import argparse
from typing import Any, NoReturn

from zirv_dash.cli.usage import UsageError, terminal_columns


class _Formatter(argparse.HelpFormatter):
    """argparse's formatter, its default width found without `shutil`: argparse
    builds one for every `add_argument`, so each verb would import it."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        if width is None:
            width = terminal_columns() - 2  # what argparse itself subtracts
        super().__init__(prog, indent_increment, max_help_position, width)


class Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as exit code 2 without sys.exit."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}\n{self.format_usage().rstrip()}")
