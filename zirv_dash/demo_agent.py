"""A built-in scripted agent: `python -m zirv_dash.demo_agent [PROMPT] [--model M]`.

It behaves like a coding agent from the outside — a banner, a prompt, a spinner and
coloured "work" output for each submitted line, then idle at its prompt again —
so the dashboard can be tried and tested without any vendor CLI.

Commands at its prompt: `/quit` or `/exit` leaves, `/full` shows a full-screen
(alternate screen) view until a key is pressed, `/ask` shows an approval prompt
and waits for y/n, `/fail` exits with code 3. Anything else is "worked on".

Environment: `ZIRV_DEMO_WORK_SECS` (default 1.5) is how long each task takes;
`ZIRV_DEMO_SPINNER=0` turns the spinner off (for deterministic screenshots).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

CSI = "\x1b["
RESET = f"{CSI}0m"
BOLD = f"{CSI}1m"
DIM = f"{CSI}2m"
CYAN = f"{CSI}36m"
GREEN = f"{CSI}32m"
YELLOW = f"{CSI}33m"
MAGENTA = f"{CSI}35m"
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

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


def banner(model: str) -> None:
    out(f"{BOLD}{CYAN}✻ zirv demo agent{RESET} {DIM}· model {model} · /quit to leave{RESET}\r\n")
    out(f"{DIM}Type a task and press Enter. /full, /ask and /fail show other states.{RESET}\r\n")


def prompt() -> None:
    out(f"{BOLD}{GREEN}>{RESET} ")


def do_work(task: str) -> None:
    spin = os.environ.get("ZIRV_DEMO_SPINNER", "1") != "0"
    total = work_secs()
    per_step = total / len(STEPS)
    out(f"{MAGENTA}⏺{RESET} Working on: {BOLD}{task}{RESET}\r\n")
    for verb, what in STEPS:
        if spin and per_step > 0:
            end = time.monotonic() + per_step
            i = 0
            while time.monotonic() < end:
                out(f"\r{CYAN}{SPINNER[i % len(SPINNER)]}{RESET} {verb}… ")
                i += 1
                time.sleep(min(0.08, max(0.0, end - time.monotonic())))
            out(f"\r{CSI}2K")
        elif per_step > 0:
            time.sleep(per_step)
        out(f"  {GREEN}✓{RESET} {verb} {DIM}{what}{RESET}\r\n")
    out(f"{MAGENTA}⏺{RESET} Done. {DIM}(demo: nothing was changed){RESET}\r\n")


def full_screen() -> None:
    rows, cols = _size()
    out(f"{CSI}?1049h{CSI}2J{CSI}H")
    for y in range(1, rows + 1):
        colour = 31 + (y % 6)
        text = f" row {y:>3} " + "█" * max(0, cols - 10)
        out(f"{CSI}{y};1H{CSI}{colour}m{text[:cols]}{RESET}")
    out(f"{CSI}1;1H{BOLD} demo full-screen view — press any key {RESET}")
    sys.stdin.readline()
    out(f"{CSI}?1049l")


def ask() -> bool:
    out(f"{YELLOW}Do you want to proceed?{RESET}\r\n")
    out(f"{BOLD}❯ 1. Yes{RESET}\r\n  2. No, and tell the agent what to do differently\r\n")
    out("(y/n) ")
    answer = sys.stdin.readline().strip().lower()
    return answer in ("y", "yes", "1")


def _size() -> tuple[int, int]:
    try:
        size = os.get_terminal_size(sys.stdout.fileno())
        return size.lines, size.columns
    except OSError:
        return 24, 80


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="demo_agent", add_help=True)
    parser.add_argument("prompt", nargs="?", default=None)
    parser.add_argument("--model", default="demo-standard")
    parser.add_argument("--resume", default=None)
    parser.add_argument("--append-system-prompt-file", default=None)
    args, _unknown = parser.parse_known_args(argv)
    banner(args.model)
    if args.resume:
        out(f"{DIM}resumed conversation {args.resume}{RESET}\r\n")
    if args.append_system_prompt_file:
        out(f"{DIM}received a handoff packet ({args.append_system_prompt_file}){RESET}\r\n")
    if args.prompt:
        out(f"{BOLD}{GREEN}>{RESET} {args.prompt}\r\n")
        do_work(args.prompt)
    while True:
        prompt()
        line = sys.stdin.readline()
        if not line:
            return 0
        task = line.strip()
        if not task:
            continue
        if task in ("/quit", "/exit"):
            out("bye\r\n")
            return 0
        if task == "/fail":
            out(f"{CSI}31merror: demo failure requested{RESET}\r\n")
            return 3
        if task == "/full":
            full_screen()
            continue
        if task == "/ask":
            ok = ask()
            out("approved\r\n" if ok else "declined\r\n")
            continue
        do_work(task)


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except KeyboardInterrupt:
        raise SystemExit(130) from None
