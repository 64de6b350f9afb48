"""How panes end: each exit reported once (a stop, a failure to start, a crash or a
clean end), and the quit that ends them all and checks nothing of them is left."""

from __future__ import annotations

import signal
import time
from collections.abc import Sequence

from zirv_dash.dash.pane_records import PaneRecords
from zirv_dash.panes.escape_watch import EscapeWatch
from zirv_dash.panes.ladder import Ladder
from zirv_dash.panes.pane import Pane
from zirv_dash.panes.ptysession import PtySession

STOP_SIGNALS = frozenset({signal.SIGHUP, signal.SIGINT, signal.SIGKILL, signal.SIGTERM})
"""Exit by one of these is a stop (`zirv ctx kill`, a hang-up), not a crash."""
QUICK_EXIT_SECS = 10.0
"""A non-zero exit this soon after launch is a failure to start."""


class PaneEnding(PaneRecords, EscapeWatch):
    """Mixed into `Dashboard` (which provides `notify` and `error`)."""

    panes: list[Pane]
    _reaped: set[str]

    def error(self, text: str) -> None:
        raise NotImplementedError

    def notify(self, text: str, done: Sequence[str] = ()) -> None:
        raise NotImplementedError

    def reap(self) -> list[Pane]:
        """Panes whose child exited since the last call (they keep their last screen)."""
        self.check_escapes()
        ended = []
        for pane in self.panes:
            if pane.short in self._reaped:
                continue
            if pane.exit_code is None and pane.poll_exit() is None:
                continue
            # Reported once, including panes whose child never started.
            self._reaped.add(pane.short)
            ended.append(pane)
            self._release(pane)
            if pane.spawn_error:
                continue  # already explained when it failed to start
            code = pane.exit_code or 0
            age = (pane.exited_at or time.time()) - pane.created_at
            if self.was_stopped(pane):
                # Ended on purpose (the menu's stop, a kill request, `zirv ctx
                # kill`): not a failure, so no error.
                self.notify(f"pane {_pane_name(pane)} stopped")
            elif code != 0 and age < QUICK_EXIT_SECS:
                self.error(
                    f"{pane.agent} pane {pane.short} exited with code {code} "
                    f"{age:.0f}s after launch: {pane.last_screen_line()[:160] or '(no output)'}"
                )
            elif code != 0:
                self.error(f"pane {_pane_name(pane)} ended (exit {code})")
            else:
                self.notify(f"pane {_pane_name(pane)} ended (exit 0)")
        return ended

    @property
    def all_ended(self) -> bool:
        return bool(self.panes) and not any(p.alive for p in self.panes)

    @staticmethod
    def was_stopped(pane: Pane) -> bool:
        """Ended by our ladder, or by a signal someone sends to stop a program."""
        if pane.pty is not None and pane.pty.stopped:
            return True
        code = pane.exit_code or 0
        return code - 128 in STOP_SIGNALS

    def shutdown_all(self, grace: float = 5.0) -> None:
        """Quit every pane and verify that nothing of their sessions is left.

        A pane gets its typed quit sequence only when its screen is known to be
        the harness's ordinary input prompt: typed into a dialog, the Enter would
        answer it for the user (a pre-selected "Yes, trust this folder"). Every
        other pane gets its harness's clean-quit signals. Then one ladder per
        pane, all stepped together: grace, SIGKILL to every process group of the
        session, until /proc shows none. Ended panes are swept too (a job the
        shell left running)."""
        ladders: list[tuple[Pane, PtySession, Ladder]] = []
        for pane in self.panes:
            pty = pane.pty
            if pty is None or (pane.exit_code is not None and pty.session_ended()):
                continue
            if pane.remote_host:
                continue  # it runs in its host's runtime: quitting here detaches it
            ladder = pty.stop_for(
                pane.agent,
                pane.adapter.quit_sequence,
                typed_ok=pane.exit_code is None and pane.at_input_prompt(),
                grace=grace,
                defer_submit=pane.adapter.defer_submit,
            )
            ladders.append((pane, pty, ladder))
        while ladders:
            finished = [ladder.step() for _, _, ladder in ladders]  # step every one
            if all(finished):
                break
            time.sleep(0.02)
        self.check_escapes(force=True)  # what left a session was reparented to us
        for pane, pty, ladder in ladders:
            if ladder.survivors:
                self.error(f"shutdown {pane.short}: pids {ladder.survivors} survived SIGKILL")
            pty.finish()
            if pane.exit_code is None:
                pane.exit_code = pty.exit_code if pty.exit_code is not None else -1
                pane.exited_at = pane.exited_at or time.time()
        for pane in self.panes:
            self._release(pane)


def _pane_name(pane: Pane) -> str:
    """`1b2c3d4e (demo)`, or `'fix tests' (1b2c3d4e)` when it has a title of its own."""
    if pane.title and pane.title != pane.short:
        return f"'{pane.title}' ({pane.short})"
    return f"{pane.short} ({pane.agent})"
