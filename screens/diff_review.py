"""Diff review overlay: the focused pane's changes, file by file, with actions.

What it diffs: a pane with its own worktree against the worktree's base
commit; any other pane's cwd against HEAD. Untracked files count as added.
Every git call (loading, commit, discard) runs in a thread worker; the screen
shows "loading…" meanwhile and never blocks the event loop.

Keys: n/] and p/[ next/previous file (or click the list), j/k or the arrows
move the line cursor, e opens the file in $EDITOR (the app is suspended), c
stages everything and commits with a message, x discards the file's changes
after y/n, m mails a comment on the cursor line to the pane, r reloads, w lists
the repository's kept pane worktrees, Esc closes (or cancels the prompt in
progress).
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Literal

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult, SuspendNotSupported
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Label
from textual.widgets.option_list import Option

from screens.dialog import DialogScreen
from screens.review_target import CommentRoute, ReviewTarget, comment_body, file_row
from widgets.diff_view import SPLIT_MIN_COLUMNS, DiffView
from widgets.key_hints import KeyHints
from widgets.nav_pick_list import NavPickList
from widgets.pick_list import PickList
from zirv_dash.editor import editor_argv, run_editor
from zirv_dash.mail import mailbox as mail
from zirv_dash.repo import gitdiff, worktree
from zirv_dash.repo.gitdiff import DiffResult, FileDiff
from zirv_dash.repo.worktree import WorktreeError

Mode = Literal["browse", "commit", "comment", "confirm"]
BROWSE_HINTS = [
    ("n", "next file"),
    ("p", "prev file"),
    ("j/k", "line"),
    ("e", "edit"),
    ("c", "commit"),
    ("x", "discard"),
    ("m", "comment"),
    ("r", "reload"),
    ("w", "worktrees"),
    ("esc", "close"),
]
PROMPT_HINTS = [("⏎", "send"), ("esc", "cancel")]
CONFIRM_HINTS = [("y", "discard"), ("n", "keep")]


class DiffReviewScreen(DialogScreen[None]):
    DEFAULT_CSS = """
    DiffReviewScreen .dialog {
        width: 100%;
        max-width: 100%;
        height: 100%;
        max-height: 100%;
        padding: 0;
    }
    DiffReviewScreen #review-title {
        height: 1;
        padding: 0 1;
        color: $accent;
        text-style: bold;
    }
    DiffReviewScreen #review-body {
        height: 1fr;
    }
    DiffReviewScreen #review-files {
        /* The diff gets the room: the list takes under a third, at most 36. */
        width: 30%;
        max-width: 36;
        height: 1fr;
        max-height: 100%;
        border-right: vkey $accent 40%;
    }
    DiffReviewScreen #review-diff {
        width: 1fr;
        height: 1fr;
    }
    DiffReviewScreen #review-status {
        height: 1;
        padding: 0 1;
        color: $text-muted;
    }
    DiffReviewScreen #review-input {
        display: none;
    }
    DiffReviewScreen.-prompt #review-input {
        display: block;
    }
    DiffReviewScreen #review-keys {
        margin-top: 0;
        padding: 0 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", show=False),
        Binding("n,right_square_bracket", "move_file(1)", show=False),
        Binding("p,left_square_bracket", "move_file(-1)", show=False),
        Binding("e", "edit", show=False),
        Binding("c", "commit", show=False),
        Binding("x", "discard", show=False),
        Binding("m", "comment", show=False),
        Binding("r", "reload", show=False),
        Binding("w", "worktrees", show=False),
        Binding("y", "confirm(True)", show=False),
    ]

    def __init__(self, target: ReviewTarget, route: CommentRoute | None = None) -> None:
        super().__init__()
        self.target = target
        self.route = route
        self.result: DiffResult | None = None
        self.index = 0
        self.mode: Mode = "browse"
        self.loading = False
        self.last_error = ""
        self.edited = ""
        """How the last editor run ended, said with the reloaded counts."""

    # -- layout ------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self._title(), id="review-title")
            with Horizontal(id="review-body"):
                yield NavPickList(id="review-files")
                yield DiffView(id="review-diff")
            yield Label("loading…", id="review-status")
            yield Input(id="review-input")
            yield KeyHints(BROWSE_HINTS, id="review-keys")

    def on_mount(self) -> None:
        self._apply_width(self.app.size.width)
        self.query_one(DiffView).focus()
        self.reload()

    def on_resize(self) -> None:
        self._apply_width(self.app.size.width)

    def _apply_width(self, columns: int) -> None:
        self.query_one(DiffView).split = columns >= SPLIT_MIN_COLUMNS

    def _title(self) -> str:
        against = "HEAD" if self.target.base == "HEAD" else self.target.base[:8]
        # The directory's name, not its path: the title must fit one row.
        where = (
            f"worktree {self.target.branch}" if self.target.branch else f"{self.target.cwd.name}/"
        )
        return f"changes · {self.target.label} · {where} against {against}"

    # -- loading -----------------------------------------------------------------------

    def reload(self) -> None:
        self.loading = True
        self._load()

    @work(thread=True, exclusive=True, group="diff-review", exit_on_error=False)
    def _load(self) -> None:
        try:
            result = gitdiff.collect(self.target.cwd, self.target.base)
        except (WorktreeError, OSError) as exc:
            self.app.call_from_thread(self._failed, f"diff failed: {exc}")
            return
        self.app.call_from_thread(self._loaded, result)

    def _loaded(self, result: DiffResult) -> None:
        self.loading = False
        previous = self.current_file.path if self.current_file else None
        self.result = result
        files = self.query_one("#review-files", NavPickList)
        files.clear_options()
        files.add_options([Option(file_row(f)) for f in result.files])
        paths = [f.path for f in result.files]
        self.index = paths.index(previous) if previous in paths else 0
        self._show_file()
        counts = (
            f"{len(result.files)} file(s)  +{result.added} -{result.removed}"
            if result.files
            else "no changes"
        )
        edited, self.edited = self.edited, ""
        self._status(f"{counts}  · {edited}" if edited else counts)

    def _failed(self, text: str) -> None:
        self.loading = False
        self.last_error = text
        self._status(text, error=True)

    def _status(self, text: str, error: bool = False) -> None:
        label = self.query_one("#review-status", Label)
        label.update(Text(text, style="bold red" if error else ""))

    @property
    def current_file(self) -> FileDiff | None:
        files = self.result.files if self.result else []
        return files[self.index] if 0 <= self.index < len(files) else None

    def _show_file(self) -> None:
        files = self.query_one("#review-files", NavPickList)
        if self.current_file is not None:
            files.highlighted = self.index
        self.query_one(DiffView).show(self.current_file)

    @on(PickList.OptionHighlighted, "#review-files")
    def _file_clicked(self, event: PickList.OptionHighlighted) -> None:
        event.stop()
        if event.option_index != self.index:
            self.index = event.option_index
            self.query_one(DiffView).show(self.current_file)

    # -- actions -----------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "close":
            return True
        if action == "confirm":
            return self.mode == "confirm"
        return self.mode == "browse"

    def action_close(self) -> None:
        if self.mode == "browse":
            self.dismiss(None)
        else:
            self._browse()

    def action_move_file(self, delta: int) -> None:
        count = len(self.result.files) if self.result else 0
        if count:
            self.index = (self.index + delta) % count
            self._show_file()

    def action_reload(self) -> None:
        self.reload()

    def action_worktrees(self) -> None:
        if self.target.repo is None:
            return
        self._status("listing pane worktrees…")
        self._list_worktrees(self.target.repo)

    @work(thread=True, exclusive=True, group="diff-review-list", exit_on_error=False)
    def _list_worktrees(self, repo: Path) -> None:
        rows = []
        for wt in worktree.listed(repo):
            try:
                reason = worktree.status(wt).reason
            except WorktreeError as exc:
                reason = str(exc)
            rows.append(f"{wt.branch} ({reason})")
        text = "pane worktrees: " + ", ".join(rows) if rows else "no pane worktrees kept"
        self.app.call_from_thread(self._status, text)

    def action_edit(self) -> None:
        f = self.current_file
        if f is None or f.status == "deleted":
            return
        row = self.query_one(DiffView).current_row
        line = row.line if row else None
        argv = editor_argv(f.path, line.new_no if line is not None else None)
        try:
            with self.app.suspend():
                code = run_editor(argv, str(self.target.cwd))
        except SuspendNotSupported:
            self._status("this terminal cannot be suspended to run an editor", error=True)
            return
        except OSError as exc:
            self._status(f"editor {argv[0]!r} could not run: {exc}", error=True)
            return
        # Said with the reloaded counts: the review is back, and how the editor ended.
        self.edited = f"back from {Path(argv[0]).name} (exit {code})"
        self.reload()

    def action_commit(self) -> None:
        if self.result and self.result.files:
            self._prompt("commit", "commit message (stages every change)")

    def action_comment(self) -> None:
        if self.current_file is None:
            return
        if self.route is None:
            self._status("this pane has no session to mail", error=True)
            return
        row = self.query_one(DiffView).current_row
        line = row.line if row else None
        where = f"{self.current_file.path}:{line.new_no or line.old_no}" if line else "file"
        self._prompt("comment", f"comment on {where} (mailed to the pane)")

    def action_discard(self) -> None:
        f = self.current_file
        if f is None:
            return
        self.mode = "confirm"
        self._status(f"discard every change to {f.path}? y discard · n keep")
        self.query_one(KeyHints).set_hints(CONFIRM_HINTS)

    def action_confirm(self, yes: bool) -> None:
        f = self.current_file
        self._browse()
        if yes and f is not None and self.result is not None:
            self._status(f"discarding {f.path}…")
            self._discard(f, self.result.base)

    def on_key(self, event: events.Key) -> None:
        # In the confirm step any key but y keeps the file (n, Esc, anything).
        if self.mode == "confirm" and event.key != "y":
            event.stop()
            self._browse()
            self._status("kept")

    def _prompt(self, mode: Mode, placeholder: str) -> None:
        self.mode = mode
        self.add_class("-prompt")
        field = self.query_one(Input)
        field.value = ""
        field.placeholder = placeholder
        field.focus()
        self.query_one(KeyHints).set_hints(PROMPT_HINTS)

    def _browse(self) -> None:
        self.mode = "browse"
        self.remove_class("-prompt")
        self.query_one(KeyHints).set_hints(BROWSE_HINTS)
        self.query_one(DiffView).focus()

    @on(Input.Submitted, "#review-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        mode = self.mode
        if not text:
            return
        self._browse()
        if mode == "commit":
            self._status("committing…")
            self._commit(text)
        elif mode == "comment":
            self._send_comment(text)

    @work(thread=True, exclusive=True, group="diff-review-git", exit_on_error=False)
    def _commit(self, message: str) -> None:
        try:
            sha = gitdiff.commit_all(self.target.cwd, message)
        except WorktreeError as exc:
            self.app.call_from_thread(self._failed, f"commit failed: {exc}")
            return
        self.app.call_from_thread(self._after_git, f"committed {sha}")

    @work(thread=True, exclusive=True, group="diff-review-git", exit_on_error=False)
    def _discard(self, f: FileDiff, base: str) -> None:
        try:
            gitdiff.discard(self.target.cwd, f, base)
        except (WorktreeError, OSError) as exc:
            self.app.call_from_thread(self._failed, f"discard of {f.path} failed: {exc}")
            return
        self.app.call_from_thread(self._after_git, f"discarded {f.path}")

    def _after_git(self, text: str) -> None:
        self._status(text)
        self.reload()

    def _send_comment(self, comment: str) -> None:
        f, route = self.current_file, self.route
        if f is None or route is None:
            return
        body = comment_body(f, self.query_one(DiffView).current_row, comment)
        try:
            route.send(body)
        except (OSError, mail.MailError) as exc:
            self._status(f"comment not sent: {exc}", error=True)
            return
        self._status(f"comment mailed to {route.to_agent} ({route.to_session[:8]})")
