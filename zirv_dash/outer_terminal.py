"""What the outer terminal (the one zirv runs in) can do, found before the UI starts.

Two facts, both decided the way tmux decides them:

* 24-bit colour: ``COLORTERM``, the terminfo ``Tc``/``RGB`` flags, and terminals
  known to support it (by ``TERM`` or the environment they set). ``[dash]
  truecolor`` overrides the guess.
* The default foreground/background colours, asked with OSC 10/11 on the
  terminal itself, so a child asking us (to pick a light or dark theme) hears
  the truth. A DA1 query rides behind: every terminal answers DA1, and answers
  in order, so its reply means "no colour answer is coming" and we never wait
  out the timeout on a terminal that ignores OSC 10/11. Keys typed before
  the answers came (the user starts typing while zirv starts) are read with
  them: they are kept, without the answers, for the UI to take as typed.
* The kitty keyboard protocol, asked with ``CSI ? u`` before the DA1 (the way
  its specification says to detect it): kitty, WezTerm, Ghostty, foot and
  iTerm2 answer with their flags; tmux 3.3a and xterm answer only the DA1.

No UI imports: this runs before the UI takes the terminal.
"""

from __future__ import annotations

import os
import re
import select
import termios
import time
import tty
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from zirv_dash import outer_sgr

RGB = tuple[int, int, int]

QUERY = b"\x1b]10;?\x1b\\\x1b]11;?\x1b\\\x1b[?u\x1b[c"
"""OSC 10 and 11 colour queries, the kitty keyboard query, then DA1 as the end marker."""
QUERY_TIMEOUT = 0.15
"""Longest wait for the answers; a terminal that says nothing costs this once."""

_COLOR_REPLY = re.compile(
    rb"\x1b\](1[01]);rgba?:([0-9a-fA-F]{1,4})/([0-9a-fA-F]{1,4})/([0-9a-fA-F]{1,4})"
    rb"(?:/[0-9a-fA-F]{1,4})?(?:\x07|\x1b\\)"
)
_DA1_REPLY = re.compile(rb"\x1b\[\?[0-9;]*c")
_KITTY_REPLY = re.compile(rb"\x1b\[\?([0-9]+)u")

# Terminals that draw 24-bit colour whatever their terminfo entry says.
_TRUECOLOR_TERMS = ("xterm-kitty", "alacritty", "wezterm", "foot", "xterm-ghostty", "contour")
_TRUECOLOR_PROGRAMS = ("iTerm.app", "WezTerm", "ghostty", "vscode", "Hyper", "Tabby")


@dataclass(frozen=True)
class OuterTerminal:
    """What the dashboard is told about its terminal."""

    color_system: str | None = None
    """A Rich colour system name to force ("truecolor", "256"), or None: Rich's own guess."""
    colors: tuple[RGB, RGB] | None = None
    """(foreground, background) as the terminal reported them, if it did."""
    sgr: outer_sgr.SgrSupport = field(default_factory=outer_sgr.SgrSupport)
    """Underline styles and colour, overline: what the terminal draws (`outer_sgr`)."""
    typed: bytes = b""
    """Input read with the answers that was not an answer: keys typed before the
    UI started, which the UI takes before anything it reads itself."""
    kitty_keyboard: bool | None = None
    """The kitty keyboard protocol: True, the terminal answered ``CSI ? u``;
    False, it answered the DA1 behind it but not that (tmux 3.3a, xterm);
    None, nothing was heard (no terminal, or no answer in time)."""


# -- truecolor ----------------------------------------------------------------------------


def terminfo_rgb(term: str, env: Mapping[str, str]) -> bool:
    """Whether TERM's terminfo entry has the ``Tc`` or ``RGB`` flag (tmux's test)."""
    for line in outer_sgr.infocmp_lines(term, env):
        cap = line.strip().rstrip(",")
        # A boolean flag, or RGB as a number/string (some entries give bits per colour).
        if cap in ("Tc", "RGB") or cap.startswith(("RGB#", "RGB=")):
            return True
    return False


def _known_truecolor(env: Mapping[str, str]) -> bool:
    term = env.get("TERM", "")
    if term.endswith("-direct") or term.startswith(_TRUECOLOR_TERMS):
        return True
    # Inside tmux: tmux takes 24-bit colour and converts it for its own client.
    if env.get("TMUX"):
        return True
    if env.get("TERM_PROGRAM", "") in _TRUECOLOR_PROGRAMS:
        return True
    if env.get("WT_SESSION") or env.get("KONSOLE_VERSION"):
        return True
    vte = env.get("VTE_VERSION", "")
    return vte.isdigit() and int(vte) >= 3600  # VTE 0.36 added 24-bit colour


def detect_truecolor(
    env: Mapping[str, str],
    terminfo: Callable[[str, Mapping[str, str]], bool] = terminfo_rgb,
) -> bool:
    if env.get("COLORTERM", "").strip().lower() in ("truecolor", "24bit"):
        return True
    if _known_truecolor(env):
        return True
    return terminfo(env.get("TERM", ""), env)


def color_system(
    setting: str,
    env: Mapping[str, str],
    terminfo: Callable[[str, Mapping[str, str]], bool] = terminfo_rgb,
) -> str | None:
    """The colour system the UI must use, from ``[dash] truecolor`` and the terminal.

    None leaves Rich's own guess (from TERM) for terminals without 24-bit
    colour; "256" stops that guess from choosing 24-bit when told not to. Left
    to `auto`, a TEXTUAL_COLOR_SYSTEM the user set wins (Textual reads it)."""
    if setting == "auto" and env.get("TEXTUAL_COLOR_SYSTEM"):
        return None
    if setting == "true" or (setting == "auto" and detect_truecolor(env, terminfo)):
        return "truecolor"
    if setting == "false":
        return "256"
    return None


# -- default colours (OSC 10/11) ----------------------------------------------------------


def _channel(digits: bytes) -> int:
    """An X11 colour channel of 1-4 hex digits, scaled to 0-255."""
    top = (1 << (4 * len(digits))) - 1
    return round(int(digits, 16) * 255 / top)


def parse_replies(data: bytes) -> tuple[dict[int, RGB], bool]:
    """The colours answered (10: foreground, 11: background) and whether the
    DA1 end marker has arrived."""
    found: dict[int, RGB] = {}
    for match in _COLOR_REPLY.finditer(data):
        code = int(match.group(1))
        found[code] = (_channel(match.group(2)), _channel(match.group(3)), _channel(match.group(4)))
    return found, _DA1_REPLY.search(data) is not None


_REPLY_START = re.compile(rb"\x1b(?:\](?:1[01]?(?:;[^\x07\x1b]*)?)?|\[(?:\?[0-9;]*)?)?\Z")
"""The unfinished start of a colour or DA1 answer at the end of what was read."""


def not_replies(data: bytes, answered: bool = True) -> bytes:
    """What was read besides the answers (keys typed meanwhile), in order. Not
    `answered` (the timeout came first): the unfinished start of an answer at
    the end is not a key."""
    rest = _DA1_REPLY.sub(b"", _KITTY_REPLY.sub(b"", _COLOR_REPLY.sub(b"", data)))
    return rest if answered else _REPLY_START.sub(b"", rest)


def read_replies(fd: int, timeout: float) -> bytes:
    """Bytes from `fd` until the DA1 reply or `timeout` seconds."""
    deadline = time.monotonic() + timeout
    data = b""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return data
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            return data
        chunk = os.read(fd, 4096)
        if not chunk:
            return data
        data += chunk
        if _DA1_REPLY.search(data):
            return data


@dataclass(frozen=True)
class Answers:
    colors: tuple[RGB, RGB] | None = None
    typed: bytes = b""
    kitty_keyboard: bool | None = None


def query_all(fd: int, timeout: float = QUERY_TIMEOUT) -> Answers:
    """Ask the terminal on `fd` for its default colours and the kitty keyboard
    protocol, in raw mode, and put the terminal back as it was; the keys typed
    meanwhile are kept. Anything that arrives too late is discarded with the
    mode change, so no reply is left for the UI to read as keys."""
    try:
        saved = termios.tcgetattr(fd)
    except termios.error:
        return Answers()
    answered = False
    data = b""
    try:
        tty.setraw(fd, termios.TCSANOW)
        os.write(fd, QUERY)
        data = read_replies(fd, timeout)
        colors, answered = parse_replies(data)
    except OSError:
        return Answers(typed=not_replies(data, answered=False))
    finally:
        # TCSAFLUSH drops unread input: the tail of a reply that came late.
        termios.tcsetattr(fd, termios.TCSANOW if answered else termios.TCSAFLUSH, saved)
    # What was typed before raw mode went through the line discipline (ICRNL):
    # its Enter reads as LF, which the UI would take for Ctrl+J.
    typed = not_replies(data, answered).replace(b"\n", b"\r")
    kitty = True if _KITTY_REPLY.search(data) else (False if answered else None)
    pair = (colors[10], colors[11]) if 10 in colors and 11 in colors else None
    return Answers(pair, typed, kitty)


def query(fd: int, timeout: float = QUERY_TIMEOUT) -> tuple[tuple[RGB, RGB] | None, bytes]:
    """(the colours or None, the keys typed meanwhile), as `query_all` found them."""
    answers = query_all(fd, timeout)
    return answers.colors, answers.typed


def query_colors(fd: int, timeout: float = QUERY_TIMEOUT) -> tuple[RGB, RGB] | None:
    """The colours `query` found (the keys typed meanwhile dropped)."""
    return query(fd, timeout)[0]


def query_tty_all(path: str = "/dev/tty", timeout: float = QUERY_TIMEOUT) -> Answers:
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    except OSError:
        return Answers()
    try:
        return query_all(fd, timeout)
    finally:
        os.close(fd)


def query_tty(
    path: str = "/dev/tty", timeout: float = QUERY_TIMEOUT
) -> tuple[tuple[RGB, RGB] | None, bytes]:
    answers = query_tty_all(path, timeout)
    return answers.colors, answers.typed


def query_tty_colors(
    path: str = "/dev/tty", timeout: float = QUERY_TIMEOUT
) -> tuple[RGB, RGB] | None:
    return query_tty(path, timeout)[0]


def probe(
    setting: str, env: Mapping[str, str] | None = None, underline_styles: str = "auto"
) -> OuterTerminal:
    """Everything the dashboard wants to know, asked once at start-up."""
    env = os.environ if env is None else env
    answers = query_tty_all()
    return OuterTerminal(
        color_system=color_system(setting, env),
        colors=answers.colors,
        typed=answers.typed,
        sgr=outer_sgr.detect(underline_styles, env),
        kitty_keyboard=answers.kitty_keyboard,
    )
