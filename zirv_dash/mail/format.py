"""Mail format and locations: the message record, its header lines, the mailbox dirs."""

import re
import unicodedata
from collections import namedtuple
from pathlib import Path

from zirv_dash import paths

TYPE_CHECKING = False  # `typing` (with contextlib) is not imported to store a note
if TYPE_CHECKING:
    from typing import NamedTuple

    from zirv_dash.mail.headers import MailHeaders as MailHeaders

DEFAULT_KEEP = 50
DEFAULT_MAX_MESSAGE_BYTES = 4096
FULL_BODY_CAP = 1024 * 1024
MAX_HEADER_VALUE = 256
OPERATOR = "operator"
"""Reader/sender name used when no session identity is set."""

MESSAGE_NAME = re.compile(r"^(\d{10})-([A-Za-z0-9]*)(?:_(\d{3}))?\.md$")
_SLUG = re.compile(r"^[A-Za-z0-9._-]+$")
_BULLET = re.compile(r"^(?:[-*+]|\d+\.)\s*")
_LEADING_BULLETS = re.compile(r"^(?:\s*(?:[-*+]+|\d+\.)(?=\s|$))+\s*")


class MailError(Exception):
    """A mailbox operation that could not be done; the message says why."""


if TYPE_CHECKING:

    class _MessageFields(NamedTuple):
        path: Path
        from_session: str
        from_agent: str
        to: str
        to_session: str | None
        sent: int
        body: str
        broadcast: bool = False

else:
    # What `typing.NamedTuple` builds from the fields above, without importing
    # `typing` (with `contextlib`), a tenth of what `zirv ctx send` imports.
    _MessageFields = namedtuple(
        "Message",
        ["path", "from_session", "from_agent", "to", "to_session", "sent", "body", "broadcast"],
        defaults=[False],
    )


class Message(_MessageFields):
    """One parsed message. A named tuple rather than a dataclass: immutable and
    compared by value all the same, and `dataclasses` (with `inspect`) costs
    `zirv ctx send` more than everything else it imports to store a note."""

    __slots__ = ()

    @property
    def id(self) -> str:
        """Stable name within the mailbox (``fanout/<name>`` for broadcasts)."""
        return f"fanout/{self.path.name}" if self.broadcast else self.path.name

    @property
    def from_short(self) -> str:
        return paths.short_id(self.from_session) or self.from_session

    @property
    def to_short(self) -> str | None:
        if self.to_session is None:
            return None
        return paths.short_id(self.to_session) or self.to_session

    def visible_to(self, agent: str | None, short: str | None) -> bool:
        """Whether a session (`agent`, `short`) should see this message.

        Directed mail is visible only to its session; undirected mail to every
        session whose agent matches `to` (``any`` matches all). None means
        "no filter" (the operator's view of the whole mailbox).
        """
        if short is not None and self.from_short == short:
            return False  # never hand a session its own note back
        if self.to_short is not None:
            return short is None or self.to_short == short
        if agent is None:
            return True
        return self.to.lower() in ("any", agent.lower())

    def directed_to(self, short: str | None) -> bool:
        return short is not None and self.to_short == short


# --- locations ---------------------------------------------------------------


def mailbox_dir(slug: str) -> Path:
    if not _SLUG.match(slug) or slug in (".", ".."):
        raise MailError(f"invalid mailbox slug {slug!r} (expected a repo slug like -work-my-repo)")
    root = paths.ensure_private_dir(paths.state_dir() / "mail")
    return paths.ensure_private_dir(root / slug)


def _subdir(slug: str, name: str) -> Path:
    return paths.ensure_private_dir(mailbox_dir(slug) / name)


def __getattr__(name: str) -> object:
    # The header record needs msgspec, which plain mail never does (see
    # `_plain_headers`): it is imported on first use of the name.
    if name == "MailHeaders":
        from zirv_dash.mail.headers import MailHeaders

        return MailHeaders
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_HEADER_FIELDS = {"from-session", "from-agent", "to", "to-session", "sent"}


def sanitize_header_value(value: str) -> str:
    """One line, no control/format characters, no leading bullets, capped."""
    cleaned = "".join(
        " " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch for ch in value
    )
    cleaned = " ".join(cleaned.split())
    cleaned = _LEADING_BULLETS.sub("", cleaned).strip()
    return cleaned[:MAX_HEADER_VALUE]


def format_message(
    body: str,
    *,
    from_session: str,
    from_agent: str,
    to: str = "any",
    to_session: str | None = None,
    sent: int,
) -> str:
    lines = [
        "## Message",
        f"- From-session: {sanitize_header_value(from_session) or OPERATOR}",
        f"- From-agent: {sanitize_header_value(from_agent) or OPERATOR}",
        f"- To: {sanitize_header_value(to) or 'any'}",
    ]
    if to_session:
        lines.append(f"- To-session: {sanitize_header_value(to_session)}")
    lines.append(f"- Sent: {int(sent)}")
    return "\n".join(lines) + "\n\n" + body + ("" if body.endswith("\n") else "\n")


def parse_message(text: str, path: Path, broadcast: bool = False) -> Message:
    """Parse message text; MailError (naming the file and header) if there is no
    ``## Message`` header or a header value has the wrong type."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip().lower() == "## message"), None)
    if start is None:
        raise MailError(f"{path}: no '## Message' header")
    header: dict[str, str | int] = {}
    body_start = len(lines)
    for index in range(start + 1, len(lines)):
        line = lines[index]
        if not line.strip():
            body_start = index + 1
            break
        item = _BULLET.sub("", line.strip(), count=1)
        key, sep, value = item.partition(":")
        key = key.strip().lower()
        if not sep or key not in _HEADER_FIELDS:
            continue
        name = key.replace("-", "_")
        if name not in header:
            header[name] = sanitize_header_value(value)
    from_session, from_agent, to, to_session, sent = _headers(header, path)
    return Message(
        path=path,
        from_session=from_session,
        from_agent=from_agent,
        to=to,
        to_session=to_session,
        sent=sent,
        body="\n".join(lines[body_start:]),
        broadcast=broadcast,
    )


_Headers = tuple[str, str, str, str | None, int]
_INT64_MAX = 2**63 - 1
"""`record_fields.INT64_MAX`: the range of `MailHeaders.sent`."""


def _headers(header: dict[str, str | int], path: Path) -> _Headers:
    values: dict[str, str | int] = {k: v for k, v in header.items() if v != ""}
    sent = values.get("sent")
    if isinstance(sent, str):
        try:
            values["sent"] = int(sent)
        except ValueError:
            pass  # left a string: the record names the header
    plain = _plain_headers(values)
    if plain is not None:
        return plain
    from zirv_dash import records
    from zirv_dash.mail import headers as mail_headers

    try:
        headers = mail_headers.validate(values, path)
    except records.RecordError as exc:
        raise MailError(str(exc)) from exc
    return headers.from_session, headers.from_agent, headers.to, headers.to_session, headers.sent


def _plain_headers(values: dict[str, str | int]) -> _Headers | None:
    """The headers when `MailHeaders` would plainly accept them (text fields that
    are valid UTF-8, a 64-bit `sent`), with its defaults; None when the record
    must look (and word the refusal), so every error reads as it always has."""
    from_session = _text(values, "from_session", "unknown")
    from_agent = _text(values, "from_agent", "unknown")
    to = _text(values, "to", "any")
    to_session = _text(values, "to_session", None)
    sent = values.get("sent", 0)
    if from_session is None or from_agent is None or to is None:
        return None
    if to_session is None and "to_session" in values:
        return None
    if type(sent) is not int or not -_INT64_MAX <= sent <= _INT64_MAX:
        return None
    return from_session, from_agent, to, to_session, sent


def _text(values: dict[str, str | int], name: str, default: str | None) -> str | None:
    """The text header `name` (or `default` when absent); None if not plain text."""
    value = values.get(name, default)
    if value is None or not isinstance(value, str):
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return value
