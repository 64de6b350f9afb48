"""The environment a supervised child starts with, and the nesting guard.

Supervision variables inherited from whatever started zirv are scrubbed first, so
a child can never post turn signals into (or otherwise impersonate) an outer
session; then the pane's own identity is set.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from zirv_dash import __version__, paths

SCRUBBED = (
    "ZIRV_CTX_SESSION",
    "ZIRV_CTX_SOCKET",
    "ZIRV_CTX_AGENT",
    "ZIRV_CTX_TRANSCRIPT",
    "ZIRV_CTX_LAUNCH_MODE",
    "ZIRV_CTX_HEADLESS",
    "ZIRV_CTX_PARENT_SESSION",
    "ZIRV_CTX_SEAT_MODEL",
    "ZIRV_CTX_SEAT_ROLE",
    "ZIRV_CTX_PROXY_DECIDED",
    "ZIRV_CTX_RESULT_SCHEMA",
    "ZIRV_CTX_RESULT_WORKDIR",
    # Authority of the session that started zirv: its work group, the principal
    # it acts for and its delegation envelope. A pane gets its own or none.
    "ZIRV_CTX_WORK_GROUP",
    "ZIRV_CTX_PRINCIPAL",
    "ZIRV_CTX_ENVELOPE",
)
"""Inherited supervision variables removed before a child starts.
`ZIRV_CTX_DASH_REQUESTS` is deliberately *not* here: it is replaced per pane."""

OUTER_TERMINAL = (
    # A pane's terminal is zirv, not the terminal zirv runs in: a child that saw
    # these would talk to the outer multiplexer (`tmux new-session` inside a
    # pane opened a session on the outer server) or tune itself for a
    # terminal it is not drawn on.
    "TMUX",
    "TMUX_PANE",
    "STY",
    "WINDOW",
    "ZELLIJ",
    "ZELLIJ_SESSION_NAME",
    "ZELLIJ_PANE_ID",
    "WEZTERM_PANE",
    "WEZTERM_UNIX_SOCKET",
    "KITTY_WINDOW_ID",
    "KITTY_LISTEN_ON",
    "KITTY_PID",
    "ALACRITTY_WINDOW_ID",
    "ALACRITTY_SOCKET",
    "ITERM_SESSION_ID",
    "TERM_SESSION_ID",
    "WT_SESSION",
    "VTE_VERSION",
    "KONSOLE_VERSION",
    "KONSOLE_DBUS_SESSION",
    "TERM_PROGRAM",
    "TERM_PROGRAM_VERSION",
)
"""Variables that describe the outer terminal or multiplexer, removed before a
child starts (as tmux replaces them for its own panes)."""


def child_env(
    session_id: str,
    agent: str,
    *,
    socket_path: str | None = None,
    dash_requests: str | None = None,
    headless: bool = False,
    parent_session: str | None = None,
    base: Mapping[str, str] | None = None,
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    for name in (*SCRUBBED, *OUTER_TERMINAL):
        env.pop(name, None)
    env.pop("ZIRV_CTX_DASH_REQUESTS", None)
    # Claude Code marks its own children; a pane is a fresh top-level session.
    env.pop("CLAUDECODE", None)
    env.pop("CLAUDE_PID", None)
    env["ZIRV_CTX_SESSION"] = session_id
    env["ZIRV_CTX_AGENT"] = agent
    if socket_path:
        env["ZIRV_CTX_SOCKET"] = socket_path
    if dash_requests:
        env["ZIRV_CTX_DASH_REQUESTS"] = dash_requests
    if headless:
        env["ZIRV_CTX_HEADLESS"] = "1"
    else:
        env["ZIRV_CTX_LAUNCH_MODE"] = "interactive"
    if parent_session:
        env["ZIRV_CTX_PARENT_SESSION"] = parent_session
    env.setdefault("TERM", "xterm-256color")
    env.setdefault("COLORTERM", "truecolor")
    env["TERM"] = "xterm-256color"
    env["TERM_PROGRAM"] = "zirv"
    env["TERM_PROGRAM_VERSION"] = __version__
    if extra:
        env.update(extra)
    return env


def nesting_refusal(
    env: Mapping[str, str] | None = None, command: str = "zirv ctx chat"
) -> str | None:
    """The refusal message if we are inside an agent session, else None."""
    env = os.environ if env is None else env
    if env.get("ZIRV_ALLOW_NESTED", "").lower() == "true":
        return None
    # The session as its short id (what `zirv ctx status` lists), the socket as
    # its whole path (cut to 8 characters it names nothing); both printable and
    # bounded: they come from whoever started us.
    found = []
    if env.get("ZIRV_CTX_SESSION"):
        session = env["ZIRV_CTX_SESSION"]
        found.append(f"ZIRV_CTX_SESSION={_shown(paths.short_id(session) or session)}")
    if env.get("ZIRV_CTX_SOCKET"):
        found.append(f"ZIRV_CTX_SOCKET={_shown(env['ZIRV_CTX_SOCKET'])}")
    evidence = ", ".join(found) or None
    if evidence is None and env.get("CLAUDE_PID") and env.get("CLAUDECODE"):
        evidence = f"CLAUDE_PID={env['CLAUDE_PID']}"
    if evidence is None:
        return None
    return (
        f"{command}: refusing to start inside an existing agent session ({evidence}). "
        "A nested interactive session can post turn signals into the outer supervisor "
        "and get the outer session compacted, restarted or killed. Run it from a plain "
        "terminal, or pass --allow-nested (or set ZIRV_ALLOW_NESTED=true) to override."
    )


EVIDENCE_CAP = 200


def _shown(value: str) -> str:
    """`value` with control characters as `?`, at most EVIDENCE_CAP characters."""
    clean = "".join(ch if ch.isprintable() else "?" for ch in value)
    return clean if len(clean) <= EVIDENCE_CAP else clean[: EVIDENCE_CAP - 1] + "…"
