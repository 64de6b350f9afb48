"""Copying text out of the dashboard: OSC 52 plus the platform clipboard command.

Two independent paths, both always tried (upstream zirv does the same):

1. OSC 52 (``ESC ] 52 ; c ; <base64> BEL``) written to the real terminal. It
   works over SSH and inside tmux (with ``set-clipboard on``), but a terminal
   that ignores it says nothing, so success is never confirmed.
2. A clipboard command — ``pbcopy`` on macOS, ``clip.exe`` on Windows,
   otherwise ``wl-copy`` then ``xclip -selection clipboard`` — whose exit
   status does confirm. It may block (X11 round trips), so callers run
   :func:`run_platform_copy` on a worker thread.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

OSC52_LIMIT = 64 * 1024
"""Longest base64 payload written (terminals drop longer OSC 52 strings)."""
COMMAND_TIMEOUT = 3.0
COPIED = "copied selection to clipboard"
FAILED = (
    "clipboard: copy could not be delivered (OSC 52 and the platform clipboard command both failed)"
)


class Outcome(Enum):
    CONFIRMED = "confirmed"
    """A clipboard command took the text."""
    UNCONFIRMED = "unconfirmed"
    """Only OSC 52 was written; the terminal may or may not have honoured it."""
    FAILED = "failed"


def cap_text(text: str, limit: int = OSC52_LIMIT) -> bytes:
    """The UTF-8 bytes of `text`, cut on a character boundary so that their
    base64 form is at most `limit` characters."""
    data = text.encode("utf-8")
    room = (limit // 4) * 3
    if len(data) <= room:
        return data
    cut = room
    while cut > 0 and (data[cut] & 0xC0) == 0x80:
        cut -= 1  # never split a multi-byte character
    return data[:cut]


def osc52(text: str, limit: int = OSC52_LIMIT) -> bytes:
    """``ESC ] 52 ; c ; <base64> BEL`` for `text` (capped, see :func:`cap_text`)."""
    return b"\x1b]52;c;" + base64.b64encode(cap_text(text, limit)) + b"\x07"


def platform_commands(
    platform: str | None = None, env: Mapping[str, str] | None = None
) -> list[list[str]]:
    """Clipboard commands to try, in order, that exist on PATH."""
    platform = platform or sys.platform
    env = env if env is not None else os.environ
    path = env.get("PATH")
    if platform == "darwin":
        wanted = [["pbcopy"]]
    elif platform.startswith(("win", "cygwin")):
        wanted = [["clip.exe"]]
    else:
        wanted = [["wl-copy"], ["xclip", "-selection", "clipboard"]]
    if env.get("TMUX"):
        # Inside tmux, whose default (set-clipboard external) drops an app's
        # OSC 52: a tmux buffer (pasted with prefix ]); -w (tmux 3.2+) also
        # forwards it to the outer terminal's clipboard.
        wanted += [["tmux", "load-buffer", "-w", "-"], ["tmux", "load-buffer", "-"]]
    found = []
    for argv in wanted:
        exe = shutil.which(argv[0], path=path)
        if exe is not None:
            found.append([exe, *argv[1:]])
    return found


@dataclass(frozen=True)
class CommandResult:
    ok: bool
    command: str
    """The command that took the text, or "" if none did."""
    error: str
    """Why every command failed ("" on success)."""


def run_platform_copy(text: str, commands: Sequence[Sequence[str]] | None = None) -> CommandResult:
    """Pipe `text` into the first clipboard command that succeeds. Blocking.

    stdout and stderr go to files, not pipes: wl-copy and xclip fork a child
    that keeps serving the selection, and a pipe held open by it would make
    this call wait for that child to exit.
    """
    commands = platform_commands() if commands is None else commands
    if not commands:
        return CommandResult(False, "", "no wl-copy, xclip or pbcopy on PATH")
    errors: list[str] = []
    data = text.encode("utf-8")
    for argv in commands:
        name = os.path.basename(argv[0])
        name = "tmux buffer" if name == "tmux" else name
        with tempfile.TemporaryFile() as err:
            try:
                proc = subprocess.run(
                    list(argv),
                    input=data,
                    stdout=subprocess.DEVNULL,
                    stderr=err,
                    timeout=COMMAND_TIMEOUT,
                    check=False,
                    start_new_session=True,
                )
            except (OSError, subprocess.SubprocessError) as exc:
                errors.append(f"{name}: {exc}")
                continue
            if proc.returncode == 0:
                return CommandResult(True, name, "")
            err.seek(0)
            detail = err.read(2000).decode("utf-8", "replace").strip().splitlines()
            reason = detail[0] if detail else f"exit {proc.returncode}"
            errors.append(f"{name}: {reason}")
    return CommandResult(False, "", "; ".join(errors))


def outcome(osc_written: bool, command: CommandResult) -> Outcome:
    if command.ok:
        return Outcome.CONFIRMED
    if osc_written:
        return Outcome.UNCONFIRMED
    return Outcome.FAILED


def describe(result: Outcome, osc_written: bool, command: CommandResult) -> str:
    """The notice (or error text, for FAILED) for one copy."""
    if result is Outcome.FAILED:
        return f"{FAILED}: {command.error}" if command.error else FAILED
    if result is Outcome.CONFIRMED:
        via = f"{command.command} + OSC 52" if osc_written else command.command
        return f"{COPIED} ({via})"
    return f"{COPIED} (OSC 52 only: {command.error})" if command.error else f"{COPIED} (OSC 52)"
