"""A built-in scripted agent: `python -m zirv_dash.harnesses.demo_agent [PROMPT] [--model M]`.

It behaves like a coding agent from the outside — a banner, an input prompt, a
spinner and coloured "work" output for each submitted line, then idle at its
prompt again — so the dashboard can be tried and tested without any vendor CLI.
Like the real CLIs it reads the keyboard a key at a time (no canonical mode, its
own echo and line editing) and redraws its input line when the terminal is
resized (SIGWINCH).

Commands at its prompt: `/quit` or `/exit` leaves, `/full` shows a full-screen
(alternate screen) view until a key is pressed, `/ask` shows an approval prompt
answered by a single key (`y`/`1` yes, `n`/`2`/Esc no; nothing else, not even
Enter, answers it), `/fail` exits with code 3. Anything else is "worked on".

Its ordinary input prompt is the line `> ` (plus whatever is typed), always the
last line drawn, with the cursor on it, while it waits for a task; no other
screen of the demo ends in that line.

Environment: `ZIRV_DEMO_WORK_SECS` (default 1.5) is how long each task takes;
`ZIRV_DEMO_SPINNER=0` turns the spinner off (for deterministic screenshots);
`ZIRV_DEMO_GATE=<path>` holds every task's last step until `<path>` exists (it is
removed when taken), so tests step through the work instead of racing its timing.
When the dashboard names a turn-signal socket (`ZIRV_CTX_SOCKET`), the demo says
"stop" on it each time it is back at its prompt, as Claude Code's Stop hook does.
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import os
import select
import signal
import sys
import termios
import time
from collections.abc import Callable, Iterator
from pathlib import Path

CSI = "\x1b["
RESET = f"{CSI}0m"
BOLD = f"{CSI}1m"
DIM = f"{CSI}2m"
CYAN = f"{CSI}36m"
GREEN = f"{CSI}32m"
YELLOW = f"{CSI}33m"
MAGENTA = f"{CSI}35m"
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
PROMPT = "> "
"""The ordinary input prompt: a bold green `>`, a space, then the draft."""
ESC = "\x1b"
YES_KEYS = ("y", "Y", "1")
NO_KEYS = ("n", "N", "2", ESC)

STEPS = (
    ("Reading", "src/app.py"),
    ("Searching", "for call sites"),
    ("Editing", "src/app.py (+12 -3)"),
    ("Running", "tests (42 passed)"),
)


def out(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def work_secs() -> float:
    try:
        return max(0.0, float(os.environ.get("ZIRV_DEMO_WORK_SECS", "1.5")))
    except ValueError:
        return 1.5


# -- the keyboard ------------------------------------------------------------------


class Keyboard:
    """Keys from stdin, one at a time: characters, Enter as "\\r", Esc as ESC.

    Escape sequences (arrows, function keys) are swallowed whole. Bytes that
    arrive together with an Enter stay queued for the next read, so a burst like
    "/ask\\ry" answers the question that the first line opens."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = ""
        self.tty = os.isatty(fd)
        self.on_resize: Callable[[], None] = lambda: None
        self._wake: int | None = None

    def watch_resizes(self) -> None:
        """Redraw on SIGWINCH from the main flow (never inside a signal handler,
        which could interrupt a write): the signal only wakes the key wait."""
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_w, False)
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGWINCH, lambda _signum, _frame: None)
        self._wake = wake_r

    def _fill(self) -> bool:
        while self._wake is not None:
            ready, _, _ = select.select([self.fd, self._wake], [], [])
            if self._wake in ready:
                os.read(self._wake, 512)
                self.on_resize()
            if self.fd in ready:
                break
        try:
            data = os.read(self.fd, 1024)
        except OSError:
            data = b""
        if not data:
            return False
        self._pending += self._decoder.decode(data)
        return True

    def _next_char(self) -> str | None:
        while not self._pending:
            if not self._fill():
                return None
        char, self._pending = self._pending[0], self._pending[1:]
        return char

    def read_key(self) -> str | None:
        """The next key, or None at end of input."""
        char = self._next_char()
        if char != ESC:
            return "\r" if char == "\n" else char
        if not self._pending:
            return ESC  # a lone Esc key press
        follow = self._next_char()
        if follow in ("[", "O"):
            while True:  # CSI/SS3: parameters up to a final byte
                part = self._next_char()
                if part is None or "@" <= part <= "~":
                    break
        return "" if follow is not None else ESC


@contextlib.contextmanager
def key_mode(fd: int) -> Iterator[None]:
    """No line buffering and no terminal echo while the demo runs (signals stay on)."""
    if not os.isatty(fd):
        yield
        return
    saved = termios.tcgetattr(fd)
    mode = termios.tcgetattr(fd)
    mode[0] &= ~(termios.ICRNL | termios.IXON)
    mode[3] &= ~(termios.ICANON | termios.ECHO | termios.IEXTEN)
    mode[6][termios.VMIN] = 1
    mode[6][termios.VTIME] = 0
    termios.tcsetattr(fd, termios.TCSANOW, mode)
    try:
        yield
    finally:
        with contextlib.suppress(termios.error):
            termios.tcsetattr(fd, termios.TCSANOW, saved)


class Agent:
    def __init__(self, keyboard: Keyboard, model: str) -> None:
        self.keys = keyboard
        self.model = model
        self.draft = ""
        self.mode = "work"
        """What a resize redraws: "prompt" (the input line), "full" or nothing."""

    # -- screens ---------------------------------------------------------------------

    def banner(self) -> None:
        out(
            f"{BOLD}{CYAN}✻ zirv demo agent{RESET} {DIM}· model {self.model} · "
            f"/quit to leave{RESET}\r\n"
        )
        out(
            f"{DIM}Type a task and press Enter. /full, /ask and /fail show other states.{RESET}\r\n"
        )

    def draw_prompt(self) -> None:
        out(f"\r{CSI}2K{BOLD}{GREEN}{PROMPT.rstrip()}{RESET} {self.draft}")

    def on_resize(self) -> None:
        # The real CLIs redraw for the new size; so does the demo.
        if self.mode == "prompt":
            self.draw_prompt()
        elif self.mode == "full":
            draw_full_screen()

    # -- turns -----------------------------------------------------------------------

    def read_line(self) -> str | None:
        """A line edited at the prompt, or None at end of input (or Ctrl+D)."""
        self.draft = ""
        self.mode = "prompt"
        self.draw_prompt()
        signal_turn_end()
        try:
            while True:
                key = self.keys.read_key()
                if key is None or (key == "\x04" and not self.draft):
                    return None
                if key == "\r":
                    out("\r\n")
                    return self.draft
                self._edit(key)
        finally:
            self.mode = "work"

    def _edit(self, key: str) -> None:
        if key in ("\x7f", "\x08"):
            if self.draft:
                self.draft = self.draft[:-1]
                self.draw_prompt()
        elif key == "\x15":  # Ctrl+U
            self.draft = ""
            self.draw_prompt()
        elif key and key.isprintable():
            self.draft += key
            if self.keys.tty:
                out(key)

    def ask(self) -> bool:
        out(f"{YELLOW}Do you want to proceed?{RESET}\r\n")
        out(f"{BOLD}❯ 1. Yes{RESET}\r\n  2. No, and tell the agent what to do differently\r\n")
        out("(y/n) ")
        while True:
            key = self.keys.read_key()
            if key is None:
                return False
            if key in YES_KEYS or key in NO_KEYS:
                out(("y" if key in YES_KEYS else "n") + "\r\n")
                return key in YES_KEYS

    def full_screen(self) -> None:
        out(f"{CSI}?1049h")
        self.mode = "full"
        draw_full_screen()
        self.keys.read_key()
        self.mode = "work"
        out(f"{CSI}?1049l")


def draw_full_screen() -> None:
    rows, cols = _size()
    out(f"{CSI}2J{CSI}H")
    for y in range(1, rows + 1):
        colour = 31 + (y % 6)
        text = f" row {y:>3} " + "█" * max(0, cols - 10)
        out(f"{CSI}{y};1H{CSI}{colour}m{text[:cols]}{RESET}")
    out(f"{CSI}1;1H{BOLD} demo full-screen view — press any key {RESET}")


def signal_turn_end() -> None:
    """Tell the dashboard this turn is over and the demo waits at its prompt."""
    socket_path = os.environ.get("ZIRV_CTX_SOCKET")
    if not socket_path:
        return
    from zirv_dash.attention.turn_signal import send_turn_signal

    with contextlib.suppress(OSError):
        send_turn_signal(socket_path)


def wait_for_gate(spin: bool, verb: str) -> None:
    """Hold the work until the gate file exists (tests step through a turn)."""
    gate = os.environ.get("ZIRV_DEMO_GATE")
    if not gate:
        return
    path = Path(gate)
    i = 0
    while not path.exists():
        if spin:
            out(f"\r{CYAN}{SPINNER[i % len(SPINNER)]}{RESET} {verb}… ")
            i += 1
        time.sleep(0.05)
    with contextlib.suppress(OSError):
        path.unlink()


def do_work(task: str) -> None:
    spin = os.environ.get("ZIRV_DEMO_SPINNER", "1") != "0"
    total = work_secs()
    per_step = total / len(STEPS)
    out(f"{MAGENTA}⏺{RESET} Working on: {BOLD}{task}{RESET}\r\n")
    for index, (verb, what) in enumerate(STEPS):
        if spin and per_step > 0:
            end = time.monotonic() + per_step
            i = 0
            while time.monotonic() < end:
                out(f"\r{CYAN}{SPINNER[i % len(SPINNER)]}{RESET} {verb}… ")
                i += 1
                time.sleep(min(0.08, max(0.0, end - time.monotonic())))
        elif per_step > 0:
            time.sleep(per_step)
        if index == len(STEPS) - 1:
            wait_for_gate(spin, verb)
        if spin:
            out(f"\r{CSI}2K")
        out(f"  {GREEN}✓{RESET} {verb} {DIM}{what}{RESET}\r\n")
    out(f"{MAGENTA}⏺{RESET} Done. {DIM}(demo: nothing was changed){RESET}\r\n")


def _size() -> tuple[int, int]:
    try:
        size = os.get_terminal_size(sys.stdout.fileno())
        return size.lines, size.columns
    except OSError:
        return 24, 80


def handle(agent: Agent, task: str) -> int | None:
    """Act on one line as typed at the prompt: a command or a task. Returns the
    exit code when the line ends the agent, else None."""
    if task in ("/quit", "/exit"):
        out("bye\r\n")
        return 0
    if task == "/fail":
        out(f"{CSI}31merror: demo failure requested{RESET}\r\n")
        return 3
    if task == "/full":
        agent.full_screen()
    elif task == "/ask":
        if agent.ask():
            out("approved\r\n")
            do_work("the approved step")
        else:
            out("declined\r\n")
    else:
        do_work(task)
    return None


def run(agent: Agent, first_task: str | None) -> int:
    first = (first_task or "").strip()
    if first:
        # The first prompt (argv) is a line like any typed one: `/ask` asks.
        out(f"{BOLD}{GREEN}{PROMPT.rstrip()}{RESET} {first}\r\n")
        code = handle(agent, first)
        if code is not None:
            return code
    while True:
        line = agent.read_line()
        if line is None:
            return 0
        task = line.strip()
        if not task:
            continue
        code = handle(agent, task)
        if code is not None:
            return code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="demo_agent", add_help=True)
    parser.add_argument("prompt", nargs="?", default=None)
    parser.add_argument("--model", default="demo-standard")
    parser.add_argument("--resume", default=None)
    parser.add_argument("--append-system-prompt-file", default=None)
    args, _unknown = parser.parse_known_args(argv)
    fd = sys.stdin.fileno()
    agent = Agent(Keyboard(fd), args.model)
    with key_mode(fd):
        if agent.keys.tty:
            agent.keys.on_resize = agent.on_resize
            agent.keys.watch_resizes()
        agent.banner()
        if args.resume:
            out(f"{DIM}resumed conversation {args.resume}{RESET}\r\n")
        if args.append_system_prompt_file:
            out(f"{DIM}received a handoff packet ({args.append_system_prompt_file}){RESET}\r\n")
        return run(agent, args.prompt)


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except KeyboardInterrupt:
        raise SystemExit(130) from None
