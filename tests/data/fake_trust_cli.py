"""A vendor-free stand-in for an agent CLI's folder-trust dialog.

Like Claude Code and Gemini CLI, it starts on a confirmation whose pre-selected
answer is "Yes, I trust this folder": Enter accepts it (and writes the trust file
named by FAKE_TRUST_FILE), `n`/Esc declines. Only after that does it show its
ordinary prompt, where `/exit` quits. SIGTERM and SIGHUP end it at once, as the
real CLIs do, without answering anything.
"""

from __future__ import annotations

import os
import sys
import termios
import tty


def main() -> int:
    trust_file = os.environ["FAKE_TRUST_FILE"]
    if os.isatty(0):
        tty.setraw(0, termios.TCSANOW)
    out = sys.stdout
    out.write("Do you trust the files in this folder?\r\n\r\n")
    out.write(" \u276f 1. Yes, I trust this folder\r\n")
    out.write("   2. No, exit\r\n\r\n")
    out.write(" Enter to confirm \u00b7 Esc to exit\r\n")
    out.flush()
    while True:
        key = os.read(0, 1)
        if not key or key in (b"n", b"\x1b", b"2"):
            return 1
        if key == b"\r":
            with open(trust_file, "w", encoding="utf-8") as handle:
                handle.write('{"hasTrustDialogAccepted": true}\n')
            break
    out.write("\x1b[2J\x1b[H> ")
    out.flush()
    line = b""
    while True:
        key = os.read(0, 1)
        if not key:
            return 0
        if key == b"\r":
            if line.strip() == b"/exit":
                return 0
            line = b""
            out.write("\r\n> ")
        else:
            line += key
            out.write(key.decode(errors="replace"))
        out.flush()


if __name__ == "__main__":
    raise SystemExit(main())
