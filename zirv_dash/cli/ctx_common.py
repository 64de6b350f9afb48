"""What every `zirv ctx` verb shares: argument parsing without sys.exit (the
parser itself is in `ctx_args`), the one-line error form, the caller's
identity and mailbox, and the mail limits."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from zirv_dash.cli.usage import UsageError

TYPE_CHECKING = False  # `typing` (with contextlib) is not imported to run a verb
if TYPE_CHECKING:
    import argparse

    from zirv_dash.cli.ctx_args import Parser


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
    from zirv_dash import paths  # with pathlib: not for a verb that needs no paths (hook)

    return paths.short_id(session) if session else None


class Refused(Exception):
    """A refusal to report as `zirv ctx <verb>: <message>` with an exit code."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def my_slug() -> str:
    from zirv_dash import paths

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
    from zirv_dash.mail import (
        mailbox as mail,  # the verbs that store mail have it already; kill need not
    )

    if cross_repo:
        return mail.DEFAULT_KEEP, mail.DEFAULT_MAX_MESSAGE_BYTES
    try:
        # Only the two limits, read without importing pydantic (see config).
        from zirv_dash.config.layers import mail_limits as configured_limits

        return configured_limits()
    except Exception as exc:  # a broken config must not stop a note being left
        err(verb, f"configuration not loaded ({exc}); using default mail limits")
        return mail.DEFAULT_KEEP, mail.DEFAULT_MAX_MESSAGE_BYTES


def report_problems(verb: str, problems: list[str]) -> None:
    for problem in problems:
        err(verb, f"{problem} (left in place; fix or remove it)")
