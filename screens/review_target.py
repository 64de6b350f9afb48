"""What a diff review looks at, where its comments go, and the text of its rows."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text

from widgets.diff_view import Row
from zirv_dash.mail import mailbox as mail
from zirv_dash.repo.gitdiff import FileDiff


@dataclass(frozen=True)
class ReviewTarget:
    """What to diff and whom a comment goes to."""

    cwd: Path
    base: str
    """A commit (a worktree's recorded base) or "HEAD"."""
    label: str
    branch: str | None = None
    """The pane's worktree branch, if it has one."""
    repo: Path | None = None
    """The dashboard's repository, whose kept pane worktrees `w` lists."""


@dataclass(frozen=True)
class CommentRoute:
    """Where a line comment is mailed: the pane, through the repo mailbox."""

    slug: str
    from_session: str
    from_agent: str
    to_agent: str
    to_session: str
    keep: int = mail.DEFAULT_KEEP
    max_message_bytes: int = mail.DEFAULT_MAX_MESSAGE_BYTES

    def send(self, body: str) -> None:
        """Mail `body` to the pane (raises OSError or `mailbox.MailError`)."""
        mail.store(
            self.slug,
            body,
            from_session=self.from_session,
            from_agent=self.from_agent,
            to=self.to_agent,
            to_session=self.to_session,
            keep=self.keep,
            max_message_bytes=self.max_message_bytes,
        )


def file_row(f: FileDiff) -> Text:
    """A row of the file list: `M +3 -1 path`."""
    mark = {"added": "A", "deleted": "D", "renamed": "R"}.get(f.status, "M")
    out = Text(no_wrap=True, overflow="ellipsis")
    out.append(f"{mark} ", "bold")
    out.append(f"+{f.added}", "green")
    out.append(" ")
    out.append(f"-{f.removed}", "red")
    out.append(f" {f.path}")
    return out


def comment_body(f: FileDiff, row: Row | None, comment: str) -> str:
    """The mail a line comment becomes, quoting the line under the cursor."""
    line = row.line if row is not None else None
    if line is None:
        return f"Review comment on {f.path}:\n\n{comment}\n"
    number = line.new_no if line.new_no is not None else line.old_no
    side = "" if line.new_no is not None else " (removed line)"
    return f"Review comment on {f.path}:{number}{side}\n> {line.text.strip()}\n\n{comment}\n"
