"""Which SGR extensions the outer terminal draws: underline styles, underline
colour, overline.

Decided the way tmux decides them: the terminfo extensions ``Smulx`` (styled
underlines, ``ESC [ 4 : n m``), ``Setulc`` (underline colour, SGR 58) and
``Smol`` (overline, SGR 53), and terminals known to draw them whatever their
terminfo entry says (most ship entries without the extensions, or none at
all on the machine zirv runs on). ``[dash] underline_styles`` overrides the
guess. A terminal that lacks them gets a plain underline and no underline
colour or overline (``widgets.terminal_style`` downgrades).

No UI imports: this runs before the UI takes the terminal.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass

# Terminals drawing all three (kitty 0.20, WezTerm, Ghostty, foot 1.9 draws
# styles and colour; a terminal ignoring SGR 53 leaves the text as it is).
_KNOWN_TERMS = ("xterm-kitty", "wezterm", "xterm-ghostty", "foot", "contour", "alacritty")
_KNOWN_PROGRAMS = ("iTerm.app", "WezTerm", "ghostty", "vscode")


@dataclass(frozen=True)
class SgrSupport:
    """What the outer terminal draws beyond the SGR every terminal knows."""

    styles: bool = False
    """Curly, dotted, dashed and double underlines (``4:2``-``4:5``)."""
    ul_color: bool = False
    """Underline colour (``58:5:n``, ``58:2::r:g:b``)."""
    overline: bool = False
    """Overline (SGR 53)."""


ALL = SgrSupport(True, True, True)
NONE = SgrSupport()


def infocmp_lines(term: str, env: Mapping[str, str]) -> list[str]:
    """TERM's terminfo entry as `infocmp -1 -x` lists it (extended capabilities
    included), a capability a line; empty when infocmp or the entry is missing.
    infocmp rather than curses: curses reads one TERM per process, and the
    extended capabilities need `-x`."""
    if not term:
        return []
    keep = {k: v for k, v in env.items() if k in ("PATH", "TERMINFO", "TERMINFO_DIRS", "HOME")}
    try:
        out = subprocess.run(
            ["infocmp", "-1", "-x", term],
            capture_output=True,
            text=True,
            timeout=2,
            env=keep,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return []
    return out.stdout.splitlines() if out.returncode == 0 else []


def terminfo_caps(term: str, env: Mapping[str, str]) -> set[str]:
    """The names of TERM's terminfo capabilities (extended ones included)."""
    names = set()
    for line in infocmp_lines(term, env)[1:]:  # the first line names the entry
        cap = line.strip().rstrip(",")
        names.add(cap.split("=", 1)[0].split("#", 1)[0])
    return names


def _known(env: Mapping[str, str]) -> bool:
    term = env.get("TERM", "")
    if term.startswith(_KNOWN_TERMS):
        return True
    # Inside tmux: 3.0+ takes all three and converts them for its own client.
    if env.get("TMUX"):
        return True
    if env.get("TERM_PROGRAM", "") in _KNOWN_PROGRAMS or env.get("WT_SESSION"):
        return True
    vte = env.get("VTE_VERSION", "")
    return vte.isdigit() and int(vte) >= 5102  # VTE 0.51.2: curly underlines and colour


def detect(
    setting: str,
    env: Mapping[str, str],
    caps: Callable[[str, Mapping[str, str]], set[str]] = terminfo_caps,
) -> SgrSupport:
    """What to send, from ``[dash] underline_styles`` (`auto`/`true`/`false`)."""
    if setting == "true":
        return ALL
    if setting == "false":
        return NONE
    if _known(env):
        return ALL
    names = caps(env.get("TERM", ""), env)
    return SgrSupport("Smulx" in names, "Setulc" in names, "Smol" in names)
