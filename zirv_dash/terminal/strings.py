"""String sequences: OSC, DCS, APC, PM, SOS and screen's title (ESC k).

Their bodies may span feeds; only OSC is acted upon (title, colour queries),
the others are consumed and ignored.
"""

from __future__ import annotations

import re

from .attr import ZONES, forget_renditions, with_link, with_zone
from .links import LinkTable
from .modes import Modes
from .osc_info import MAX_NOTES, MAX_TITLE, Note, clean_text, cwd_of, note_of
from .screen import Screen

# Terminators of string sequences, as tmux reads them: OSC may end with BEL,
# DCS/APC/PM/SOS only with ST; ESC (possibly the start of ST) and CAN/SUB
# end any of them.  U+009C is not ST here: in UTF-8 it is two bytes that
# tmux does not take for a terminator.
_OSC_END_RE = re.compile(r"[\x07\x18\x1a\x1b]")
_DCS_END_RE = re.compile(r"[\x18\x1a\x1b]")

MAX_STRING = 65536  # longest OSC/DCS payload kept (the rest is ignored)


class StringSequences(Modes):
    """Collecting string sequence bodies, and answering OSC queries."""

    def __init__(self, screen: Screen) -> None:
        super().__init__(screen)
        # An incomplete sequence at the end of a feed, completed by the next.
        self._pending = ""
        self._str_kind = ""  # "]" OSC, "P" DCS, "_" APC, "^" PM, "X" SOS, "k" title
        self._str_buf: list[str] = []
        self._str_len = 0
        # Colours reported to OSC 10/11 queries: the outer terminal's, when it
        # told us. None (unknown) leaves the query unanswered, as tmux does when
        # its client never reported colours; an invented colour would make the
        # child theme itself differently inside zirv than in tmux.
        self.default_fg_rgb: tuple[int, int, int] | None = None
        self.default_bg_rgb: tuple[int, int, int] | None = None
        self.links = LinkTable(forget_renditions)
        self.cwd: str | None = None
        """The working directory the program last reported (OSC 7), None: never."""
        self.shell_running: bool | None = None
        """Shell integration (OSC 133): a command runs (C), or the shell is at its
        prompt (A, B, D); None until the first mark."""
        self.last_exit: int | None = None
        """The exit status the last ``133;D`` gave (None: none given yet)."""
        self.shell_marks = 0
        """Marks seen: a reader notices a new one by the count changing."""
        self._notes: list[Note] = []
        self._kitty_notes: dict[str, list[str]] = {}

    def _string(self, text: str, i: int) -> int:
        """Consume the body of an OSC/DCS/APC/PM/SOS string starting at ``i``."""
        kind = self._str_kind
        n = len(text)
        end_re = _OSC_END_RE if kind == "]" else _DCS_END_RE
        m = end_re.search(text, i)
        if m is None:
            self._keep_string(text[i:])
            return n
        k = m.start()
        t = text[k]
        if t == "\x1b":
            if k + 1 >= n:
                self._keep_string(text[i:k])
                self._pending = "\x1b"
                return n
            if text[k + 1] != "\\":
                self._str_kind = ""  # ESC + anything else aborts the string
                return k
            nxt = k + 2
            terminator = "\x1b\\"
        elif t in "\x18\x1a":
            self._str_kind = ""
            return k + 1
        else:
            nxt = k + 1
            terminator = "\x07" if t == "\x07" else "\x1b\\"
        self._keep_string(text[i:k])
        self._screen.last_char = ""
        body = "".join(self._str_buf)
        self._str_buf = []
        self._str_kind = ""
        if kind == "]":
            self._osc(body, terminator)
        return nxt

    def _shell_mark(self, arg: str) -> None:
        """``133;A`` prompt, ``B`` command line, ``C`` output, ``D[;status]`` end
        (FinalTerm's marks, as fish, zsh, bash integrations and the WezTerm,
        Ghostty and VS Code scripts send them; options after ``;`` ignored)."""
        kind = arg[:1]
        zone = ZONES.get(kind)
        if zone is None or arg[1:2] not in ("", ";"):
            return
        scr = self._screen
        scr.attr = with_zone(scr.attr, zone)
        self.shell_marks += 1
        self.shell_running = kind == "C"
        if kind == "D":
            status = arg[2:].split(";", 1)[0]
            if status.isdigit() and len(status) <= 3:
                self.last_exit = int(status)

    def take_notifications(self) -> list[Note]:
        """The notifications the program asked for since the last call (OSC 9,
        777, 99), oldest first."""
        notes, self._notes = self._notes, []
        return notes

    @property
    def has_notifications(self) -> bool:
        return bool(self._notes)

    def _keep_string(self, part: str) -> None:
        if self._str_len < MAX_STRING:
            self._str_buf.append(part[: MAX_STRING - self._str_len])
            self._str_len += len(part)

    # -- OSC -------------------------------------------------------------------------

    def _osc(self, body: str, st: str) -> None:
        code, _, arg = body.partition(";")
        if code == "0" or code == "2":
            self._title = clean_text(arg[: 4 * MAX_TITLE], MAX_TITLE)
        elif code == "7":
            cwd = cwd_of(arg)
            if cwd is not None:
                self.cwd = cwd
        elif code in ("9", "777", "99"):
            note = note_of(code, arg, self._kitty_notes)
            if note is not None:
                if len(self._notes) >= MAX_NOTES:
                    del self._notes[0]  # a flood keeps the newest
                self._notes.append(note)
        elif code == "133":
            self._shell_mark(arg)
        elif code == "8":
            scr = self._screen
            scr.attr = with_link(scr.attr, self.links.parse(arg))
        elif code in ("10", "11", "12"):
            # Colour queries; "10;?;?" asks for fg and then bg.
            idx = int(code)
            for part in arg.split(";"):
                rgb = self.default_bg_rgb if idx == 11 else self.default_fg_rgb
                if part == "?" and idx <= 12 and rgb is not None:
                    self._replies.append(f"\x1b]{idx};{_xrgb(rgb)}{st}")
                idx += 1
        elif code == "4":
            fields = arg.split(";")
            for k in range(0, len(fields) - 1, 2):
                if fields[k + 1] == "?" and fields[k].isdigit() and int(fields[k]) < 256:
                    p = int(fields[k])
                    self._replies.append(f"\x1b]4;{p};{_xrgb(_palette_rgb(p))}{st}")
        # OSC 1 (icon), 52 (clipboard), 133 (prompt marks) and everything else: ignored.


def _xrgb(rgb: tuple[int, int, int]) -> str:
    r, g, b = rgb
    return f"rgb:{r:02x}{r:02x}/{g:02x}{g:02x}/{b:02x}{b:02x}"


_ANSI16 = [
    (0x00, 0x00, 0x00),
    (0xCD, 0x00, 0x00),
    (0x00, 0xCD, 0x00),
    (0xCD, 0xCD, 0x00),
    (0x00, 0x00, 0xEE),
    (0xCD, 0x00, 0xCD),
    (0x00, 0xCD, 0xCD),
    (0xE5, 0xE5, 0xE5),
    (0x7F, 0x7F, 0x7F),
    (0xFF, 0x00, 0x00),
    (0x00, 0xFF, 0x00),
    (0xFF, 0xFF, 0x00),
    (0x5C, 0x5C, 0xFF),
    (0xFF, 0x00, 0xFF),
    (0x00, 0xFF, 0xFF),
    (0xFF, 0xFF, 0xFF),
]


def _palette_rgb(p: int) -> tuple[int, int, int]:
    """xterm's default 256-colour palette."""
    if p < 16:
        return _ANSI16[p]
    if p < 232:
        p -= 16
        steps = (0, 95, 135, 175, 215, 255)
        return steps[p // 36], steps[(p // 6) % 6], steps[p % 6]
    v = 8 + 10 * (p - 232)
    return v, v, v
