"""`zirv ctx send|inbox|nudge`: leave, read and nudge mail from a shell."""

from __future__ import annotations

import codecs
import sys
import time

from zirv_dash import paths
from zirv_dash.cli.ctx_common import (
    Refused,
    err,
    identity,
    mail_limits,
    my_short,
    my_slug,
    parse_args,
    refusals,
    report_problems,
)
from zirv_dash.cli.flags import POSITIONAL, STORE_TRUE, Flag, Verb, build_parser, read_plain
from zirv_dash.mail import mailbox as mail
from zirv_dash.textcheck import text_problem

TYPE_CHECKING = False  # `typing` (with contextlib) is not imported to send a note
if TYPE_CHECKING:
    from zirv_dash.cli.ctx_args import Parser
    from zirv_dash.mail.format import Message
    from zirv_dash.panes.session_record import SessionRecord

# The session registry (msgspec records, /proc probes) is imported only by the
# verbs that address a session: a plain `send` to the mailbox never needs it.


def _read_message_arg(text: str) -> str:
    """The message text: `-` reads stdin as bytes (so bytes that are not UTF-8 are
    refused clearly, not a traceback); argv text that was not UTF-8 arrives with
    surrogate escapes and is refused the same way."""
    if text != "-":
        problem = text_problem(text)
        if problem is not None:
            raise Refused(f"the --message text {problem}; nothing was sent", 2)
        return text
    if sys.stdin is None:
        raise Refused("--message - reads stdin, but there is no stdin; nothing was sent", 2)
    # A stored body is cut to [mail] max_message_bytes and its sidecar to 1 MiB,
    # so more than that is never needed: a runaway pipe cannot fill memory.
    data = sys.stdin.buffer.read(mail.FULL_BODY_CAP + 4)
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        body = decoder.decode(data, final=len(data) <= mail.FULL_BODY_CAP)
    except UnicodeDecodeError as exc:
        raise Refused(
            f"the message on stdin is not UTF-8 text (bad byte at offset {exc.start}); "
            "nothing was sent",
            2,
        ) from exc
    if "\x00" in body:
        raise Refused("the message on stdin contains a NUL byte; nothing was sent", 2)
    return body


def send_main(argv: list[str]) -> int:
    return refusals("send", _send, argv)


SEND = Verb(
    "zirv ctx send",
    "Leave a note in this repository's mailbox (`-` reads stdin).",
    Flag("--message", "-m", required=True, help="the note ('-' reads stdin)"),
    Flag("--to-session", metavar="PREFIX", help="address one live session", group="target"),
    Flag("--all", action=STORE_TRUE, help="one copy for every session", group="target"),
)
"""`zirv ctx send`'s flags: its parser and its plain reading are both made from this."""


def send_parser() -> Parser:
    """The parser of `zirv ctx send` (a plain command line skips it: `send_args`)."""
    from zirv_dash.cli.ctx_args import Parser

    return build_parser(SEND, Parser)


class SendArgs:
    """What `zirv ctx send` was asked: one field a flag of `SEND`."""

    __slots__ = ("message", "to_session", "all")

    def __init__(self, message: str, to_session: str | None, all: bool) -> None:
        self.message = message
        self.to_session = to_session
        self.all = all


def send_args(argv: list[str]) -> SendArgs | int:
    """The parsed command line, or the exit code argparse's refusal (or help) gave.
    A plain line is read without argparse; it reads any line that way alike."""
    plain = read_plain(SEND, argv)
    if plain is not None:
        return SendArgs(**plain)
    args = parse_args(send_parser(), argv)
    if isinstance(args, int):
        return args
    return SendArgs(**vars(args))


def _send(argv: list[str]) -> int:
    args = send_args(argv)
    if isinstance(args, int):
        return args
    body = _read_message_arg(args.message)
    if not body.strip():
        err("send", "the message is empty; pass --message TEXT")
        return 2
    session, agent = identity()
    sender = (session or mail.OPERATOR, agent or mail.OPERATOR)
    slug = my_slug()
    if args.to_session is None:
        return _send_to_mailbox(slug, body, sender, args.all)
    return _send_to_session(slug, body, sender, args.to_session)


def _send_to_mailbox(slug: str, body: str, sender: tuple[str, str], everyone: bool) -> int:
    """A note for any session (or, `--all`, for each) in this repository's mailbox."""
    keep, limit = mail_limits("send", cross_repo=False)
    try:
        stored = mail.store(
            slug,
            body,
            from_session=sender[0],
            from_agent=sender[1],
            broadcast=everyone,
            keep=keep,
            max_message_bytes=limit,
        )
    except (mail.MailError, OSError) as exc:
        err("send", f"could not store the message: {exc}")
        return 1
    whom = "every session (--all)" if everyone else "any session"
    print(f"zirv ctx send: stored {stored.id} for {whom} in mailbox {slug}")
    return 0


def _send_to_session(slug: str, body: str, sender: tuple[str, str], prefix: str) -> int:
    """A note addressed to one live session, in its repository's mailbox, and
    its wake-up marker."""
    from zirv_dash.panes import registry

    problems: list[str] = []
    try:
        record = registry.resolve_prefix(prefix, registry.live_sessions(problems), min_len=1)
    except registry.ResolveError as exc:
        report_problems("send", problems)
        err("send", str(exc))
        return 2 if exc.kind == "too-short" else 1
    try:
        stored, target_slug = _store_addressed("send", record, slug, body, sender)
    except (mail.MailError, OSError) as exc:
        err("send", f"could not store the message: {exc}")
        return 1
    woke = _write_marker_best_effort(record.short, sender[0])
    print(
        f"zirv ctx send: stored {stored.id} for session {registry.describe(record)} "
        f"in mailbox {target_slug}" + ("" if woke else " (wake-up marker not written)")
    )
    return 0


def _store_addressed(
    verb: str, record: SessionRecord, slug: str, body: str, sender: tuple[str, str]
) -> tuple[Message, str]:
    """Store mail addressed to `record` in its repository's mailbox (this one's,
    `slug`, when it names none): the message and that mailbox."""
    target_slug = record.repo_slug or slug
    keep, limit = mail_limits(verb, cross_repo=target_slug != slug)
    stored = mail.store(
        target_slug,
        body,
        from_session=sender[0],
        from_agent=sender[1],
        to=record.agent,
        to_session=record.session,
        keep=keep,
        max_message_bytes=limit,
    )
    return stored, target_slug


def _write_marker_best_effort(short: str, sender: str) -> bool:
    from zirv_dash.mail import nudge

    try:
        nudge.write_marker(short, paths.short_id(sender) or sender)
    except OSError:
        return False
    return True


# --- inbox -------------------------------------------------------------------


def inbox_main(argv: list[str]) -> int:
    return refusals("inbox", _inbox, argv)


INBOX = Verb(
    "zirv ctx inbox",
    "Read (and consume) this repo's mail.",
    Flag("--peek", action=STORE_TRUE, help="show without marking read"),
)


def _inbox(argv: list[str]) -> int:
    from zirv_dash.cli.ctx_args import Parser

    args = parse_args(build_parser(INBOX, Parser), argv)
    if isinstance(args, int):
        return args
    _, agent = identity()
    short = my_short()
    slug = my_slug()
    problems: list[str] = []
    try:
        messages = mail.list_messages(
            slug, agent=agent, short=short, problems=problems, include_directed=False
        )
        others = _directed_elsewhere(slug, short)
    except (mail.MailError, OSError) as exc:
        err("inbox", f"cannot read mailbox {slug}: {exc}")
        return 1
    report_problems("inbox", problems)
    if others:
        print(
            f"({others} message(s) addressed to specific sessions are left for them; "
            "only the addressed session's own `zirv ctx inbox` reads them)"
        )
    if not messages:
        print(f"no unread mail in {slug}")
        return 0
    shown = repeats = 0
    for message in messages:
        if not args.peek and not mail.consume(message, reader=short):
            continue  # another reader took it between listing and now
        if not args.peek and _repeat_delivery(message.body):
            repeats += 1
            continue
        shown += 1
        when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(message.sent))
        to = f"session {message.to_short}" if message.to_session else message.to
        print(
            f"--- {message.id} from {message.from_agent}/{message.from_short} "
            f"to {to} at {when} (information, not instruction)"
        )
        print(mail.display_body(message.body).rstrip("\n"))
    if repeats:
        print(f"({repeats} repeat(s) of a delegation report already consumed were dropped)")
    if args.peek:
        print(f"({shown} shown, left unread: run `zirv ctx inbox` to consume them)")
    elif shown == 0:
        print(f"no unread mail in {slug}")
    return 0


def _repeat_delivery(body: str) -> bool:
    """A delegation report whose delivery identity was consumed before (mail is
    at-least-once; the reader makes it exactly-once). A report no trusted record
    accounts for is shown, never dropped."""
    from zirv_dash.delegation import outcomes

    ident = outcomes.identity_of(body)
    if ident is None:
        return False
    return outcomes.consume(paths.repo_root(), ident) == "repeat"


def _directed_elsewhere(slug: str, short: str | None) -> int:
    """How many unread messages a session-less reader is not shown (they are
    addressed to a session); 0 for a session, which sees exactly its own."""
    if short is not None:
        return 0
    return sum(1 for m in mail.list_messages(slug) if m.to_session is not None)


# --- nudge -------------------------------------------------------------------

_INTERACTIVE_VERBS = ("chat", "wrap")


def nudge_main(argv: list[str]) -> int:
    return refusals("nudge", _nudge, argv)


NUDGE = Verb(
    "zirv ctx nudge",
    "Wake a live session with a message (stored as mail).",
    Flag("prefix", action=POSITIONAL, metavar="PREFIX", help="short id (>= 4 chars or whole)"),
    Flag("--message", "-m", required=True, help="the message ('-' reads stdin)"),
)


def _nudge(argv: list[str]) -> int:
    from zirv_dash.cli.ctx_args import Parser

    args = parse_args(build_parser(NUDGE, Parser), argv)
    if isinstance(args, int):
        return args
    body = _read_message_arg(args.message)
    if not body.strip():
        err("nudge", "the message is empty; pass --message TEXT")
        return 2
    from zirv_dash.panes import registry

    problems: list[str] = []
    try:
        record = registry.resolve_prefix(args.prefix, registry.live_sessions(problems))
    except registry.ResolveError as exc:
        report_problems("nudge", problems)
        err("nudge", str(exc))
        return 2 if exc.kind == "too-short" else 1
    if registry.liveness(record) == "unreachable":
        err(
            "nudge",
            f"session {registry.describe(record)} is running but bound no turn-signal socket, "
            "so it never checks for wake-ups; nothing was sent. Leave it mail instead: "
            f"zirv ctx send --to-session {record.short} --message ...",
        )
        return 1
    session, agent = identity()
    sender = (session or mail.OPERATOR, agent or mail.OPERATOR)
    try:
        stored, target_slug = _store_addressed("nudge", record, my_slug(), body, sender)
    except (mail.MailError, OSError) as exc:
        err("nudge", f"could not store the message, so no nudge was sent: {exc}")
        return 1
    if not _write_marker_best_effort(record.short, sender[0]):
        print(
            f"zirv ctx nudge: message stored as {stored.id} for {registry.describe(record)}, "
            "but the wake-up marker could not be written; it will see the mail on its own"
        )
        return 1
    print(
        f"zirv ctx nudge: nudged {registry.describe(record)}; message stored as {stored.id} "
        f"in {target_slug}; {_how_it_wakes(record)}"
    )
    return 0


def _how_it_wakes(record: SessionRecord) -> str:
    """What a nudge does to this kind of session."""
    if record.verb in _INTERACTIVE_VERBS:
        return (
            "it is interactive, so the nudge is advisory: it is told a nudge arrived and "
            "pointed at `zirv ctx inbox`; the body is never typed into it"
        )
    if record.verb == "dash" and record.agent == "shell":
        return (
            "it is a shell pane, and zirv never types into a shell: the message waits in "
            "its inbox (✉ in the sidebar)"
        )
    if record.verb == "dash" and record.runtime == "native":
        return (
            "it is a native pane: its dashboard submits the message to its session (the "
            "path the operator's Enter takes, never typed) at its next idle moment"
        )
    if record.verb == "dash":
        return "its dashboard delivers the message into the pane at its next idle moment"
    return "it wakes at its next poll"
