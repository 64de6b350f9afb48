"""Outer-terminal notifications when a pane needs you, is done, or failed.

Pure parts, so the rules are testable without a terminal:

- `EpisodeGate` decides *whether* to notify: once when a pane enters one of
  the notifying states (an episode is one stay in that state), never for the
  focused pane, and never again in the same episode.
- `plan` decides *what* to send for `[dash] notify`: `bell` is a BEL; `osc` is
  OSC 9 (iTerm2, WezTerm, Ghostty, Windows Terminal, kitty) or OSC 777
  `notify;title;body` (urxvt, foot, VTE), wrapped in tmux's DCS passthrough when
  inside tmux; `desktop` runs `notify-send` where it is installed and falls
  back to OSC otherwise; `off` sends nothing.

Every label that reaches the outer terminal goes through `clean`: no control
character (C0, C1, DEL) and no format character, so a pane title or agent name
can never end the OSC early and smuggle its own escape sequence out.
"""

from __future__ import annotations

import shutil
import subprocess
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from zirv_dash.attention.states import PaneState

Mode = Literal["off", "bell", "osc", "desktop"]
MODES: tuple[Mode, ...] = ("off", "bell", "osc", "desktop")

NOTIFYING: frozenset[PaneState] = frozenset(
    {PaneState.NEEDS_YOU, PaneState.DONE_UNSEEN, PaneState.FAILED}
)
MAX_FIELD_CHARS = 120
"""Title and body are cut to this: a notification is a glance, not a log."""
DESKTOP_TIMEOUT_SECS = 5.0

BEL = b"\x07"
ESC = "\x1b"


class EpisodeGate:
    """At most one notification per (pane, episode)."""

    def __init__(self) -> None:
        self._episodes: dict[str, PaneState] = {}

    def observe(self, key: str, state: PaneState, focused: bool) -> bool:
        """Feed a pane's new state; True if this change deserves a notification.

        An episode begins when the pane enters a notifying state and ends when it
        leaves it. An episode that begins on the focused pane is still recorded,
        so looking away later in the same episode does not fire it after the fact.
        """
        if state not in NOTIFYING:
            self._episodes.pop(key, None)
            return False
        if self._episodes.get(key) is state:
            return False
        self._episodes[key] = state
        return not focused

    def forget(self, key: str) -> None:
        """A pane that is gone for good (closed) loses its episode."""
        self._episodes.pop(key, None)


def clean(text: str, limit: int = MAX_FIELD_CHARS) -> str:
    """`text` with every control and format character replaced by a space and
    runs of whitespace collapsed, cut to `limit` characters."""
    kept = [" " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") else ch for ch in text]
    flat = " ".join("".join(kept).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def words_for(state: PaneState, reason: str | None) -> str:
    if state is PaneState.NEEDS_YOU:
        return reason or "needs you"
    if state is PaneState.FAILED:
        return f"failed ({reason})" if reason else "failed"
    return "done"


@dataclass(frozen=True)
class Notification:
    title: str
    body: str

    @classmethod
    def for_pane(cls, label: str, agent: str, state: PaneState, reason: str | None) -> Notification:
        return cls(title="zirv", body=clean(f"{agent} {label} {words_for(state, reason)}"))


def osc9(note: Notification) -> str:
    # The text starts with the title, never a bare digit, so a terminal that
    # reads `OSC 9 ; <n>` as a sub-command (ConEmu's progress, 9;4) sees text.
    return f"{ESC}]9;{note.title}: {note.body}\x07"


def osc777(note: Notification) -> str:
    # `;` separates the fields, so none may appear inside them.
    title = note.title.replace(";", ",")
    body = note.body.replace(";", ",")
    return f"{ESC}]777;notify;{title};{body}\x07"


def tmux_wrap(sequence: str) -> str:
    """tmux's DCS passthrough: every ESC inside doubled. tmux (3.3+) forwards it
    only with `allow-passthrough on`; otherwise it drops it silently."""
    return f"{ESC}Ptmux;" + sequence.replace(ESC, ESC + ESC) + f"{ESC}\\"


def osc_flavour(env: Mapping[str, str]) -> Literal["9", "777"]:
    """OSC 777 for the terminals that speak only it; OSC 9 for the rest. Sending
    both would show two notifications on terminals that understand both."""
    term = env.get("TERM", "")
    if term.startswith(("rxvt", "foot")) or env.get("VTE_VERSION"):
        return "777"
    return "9"


@dataclass(frozen=True)
class Delivery:
    """What to do for one notification: bytes for the outer terminal and/or a
    command to run (never through a shell)."""

    data: bytes = b""
    argv: tuple[str, ...] = ()


def terminal_bytes(note: Notification, env: Mapping[str, str]) -> bytes:
    sequence = osc777(note) if osc_flavour(env) == "777" else osc9(note)
    if env.get("TMUX"):
        sequence = tmux_wrap(sequence)
    return sequence.encode("utf-8")


def plan(
    mode: Mode,
    note: Notification,
    env: Mapping[str, str],
    which: Callable[[str], str | None] = shutil.which,
) -> Delivery:
    if mode == "off":
        return Delivery()
    if mode == "bell":
        # A plain BEL even inside tmux: tmux handles it itself (the window's bell
        # flag, and `bell-action` forwards it to the outer terminal).
        return Delivery(data=BEL)
    if mode == "desktop":
        binary = which("notify-send")
        if binary:
            return Delivery(argv=(binary, "--app-name=zirv", "--", note.title, note.body))
    return Delivery(data=terminal_bytes(note, env))


def run_desktop(argv: tuple[str, ...]) -> bool:
    """Run a desktop notifier to completion (call it off the UI loop)."""
    try:
        result = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=DESKTOP_TIMEOUT_SECS,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return result.returncode == 0
