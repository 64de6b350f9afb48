"""A pane's child as it was before a handover's successor replaced it.

`Pane.kept()` takes it, `Pane.restore()` puts it back: a successor that fails its
trial (`runtime.successor_trial`) gives the pane its original, screen, state and
unparsed output as they were."""

from __future__ import annotations

from zirv_dash.panes.ptysession import PtySession


class Kept:
    """A pane's child as it was before a successor replaced it."""

    def __init__(self, fields: dict[str, object]) -> None:
        self.fields = fields

    @property
    def pty(self) -> PtySession | None:
        pty = self.fields.get("pty")
        return pty if isinstance(pty, PtySession) else None


CHILD_FIELDS = (
    "pty", "model_view", "agent", "adapter", "model", "spec", "inbox", "inbox_bytes",
    "started_mono", "last_output_at", "_release_pending", "last_input_at", "turn_signal_at",
    "user_typed_since_turn", "typed_at_dialog", "exit_code", "exited_at", "spawn_error",
    "scroll_offset", "tracker", "_screen_checked_at", "_screen_dirty", "_repaint",
    "_failed_mono", "awaiting_frame", "_shell_marks",
)  # fmt: skip
"""What `Pane.install_successor` replaces: all `_fresh_child` sets, and the child."""
