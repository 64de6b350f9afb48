"""What every `zirv ctx` verb shares: argument parsing without sys.exit, the
one-line error form, the caller's identity and mailbox, and the mail limits."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from zirv_dash import paths


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


def parse_args(parser: Parser, argv: list[str]) -> argparse.Namespace | int:
    try:
        return parser.parse_args(argv)
    except UsageError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except SystemExit as exc:  # --help
        return int(exc.code or 0)


def err(verb: str, message: str) -> None:
    print(f"zirv ctx {verb}: {message}", file=sys.stderr)


# --- identity ----------------------------------------------------------------


def identity() -> tuple[str | None, str | None]:
    """(session id, agent) from the environment a pane gives its child."""
    session = os.environ.get("ZIRV_CTX_SESSION") or None
    agent = os.environ.get("ZIRV_CTX_AGENT") or None
    return session, agent


def my_short() -> str | None:
    session, _ = identity()
    return paths.short_id(session) if session else None


class Refused(Exception):
    """A refusal to report as `zirv ctx <verb>: <message>` with an exit code."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def my_slug() -> str:
    try:
        return paths.repo_slug(paths.repo_root())
    except FileNotFoundError as exc:
        raise Refused(
            "the current directory no longer exists, so the repository (and its mailbox) "
            "cannot be found; cd into the repository and run it again (nothing was sent "
            "or read)"
        ) from exc


def refusals(verb: str, run: Callable[[list[str]], int], argv: list[str]) -> int:
    """Run a verb, turning a refusal into one clear line and its exit code."""
    try:
        return run(argv)
    except Refused as exc:
        err(verb, str(exc))
        return exc.code


def mail_limits(verb: str, cross_repo: bool) -> tuple[int, int]:
    """(keep, max_message_bytes). A cross-repo store uses neutral defaults
    rather than this repository's configuration, as upstream does."""
    from zirv_dash import mail  # the verbs that store mail have it already; kill need not

    if cross_repo:
        return mail.DEFAULT_KEEP, mail.DEFAULT_MAX_MESSAGE_BYTES
    try:
        # Only the two limits, read without importing pydantic (see config).
        from zirv_dash.config import mail_limits as configured_limits

        return configured_limits()
    except Exception as exc:  # a broken config must not stop a note being left
        err(verb, f"configuration not loaded ({exc}); using default mail limits")
        return mail.DEFAULT_KEEP, mail.DEFAULT_MAX_MESSAGE_BYTES


def report_problems(verb: str, problems: list[str]) -> None:
    for problem in problems:
        err(verb, f"{problem} (left in place; fix or remove it)")
