"""Every setting of the settings model as plain data, for start-up without pydantic.

GENERATED from `config/model.py` by `python -m zirv_dash.config.generate`: do not
edit (tests/test_config_table.py fails when this is stale).
"""

# ruff: noqa: E501

Kind = str | tuple[str, ...]
"""`bool`, `int`, `str`, `strs` (a list of strings), or the choices of a literal."""
Field = tuple[Kind, object, int | None, int | None]
"""(kind, default, lowest, highest) of one setting; the bounds are for ints."""

SECTIONS: dict[str, dict[str, Field]] = {
    "dash": {
        "enabled": ("bool", True, None, None),
        "sidebar_cols": ("int", 28, 16, 80),
        "max_panes": ("int", 9, 1, 64),
        "mouse": ("bool", True, None, None),
        "idle_quiet_ms": ("int", 10000, 100, None),
        "roster_max_age_secs": ("int", 604800, 0, None),
        "workdir_roots": ("strs", (), None, None),
        "scrollback_bytes": ("int", 8388608, 65536, None),
        "motion": (("full", "reduced"), "full", None, None),
        "keymap": ("str", "default", None, None),
        "truecolor": (("auto", "true", "false"), "auto", None, None),
        "notify": (("off", "bell", "osc", "desktop"), "osc", None, None),
    },
    "mail": {
        "enabled": ("bool", True, None, None),
        "max_message_bytes": ("int", 4096, 64, 1048576),
        "max_delivered_bytes": ("int", 4096, 64, 1048576),
        "keep": ("int", 50, 1, None),
    },
    "session": {"persistent": ("bool", False, None, None)},
}
ENV: dict[str, dict[str, str]] = {
    "dash": {
        "enabled": "ZIRV_CTX_DASH",
        "sidebar_cols": "ZIRV_CTX_DASH_SIDEBAR_COLS",
        "max_panes": "ZIRV_CTX_DASH_MAX_PANES",
        "mouse": "ZIRV_CTX_DASH_MOUSE",
        "idle_quiet_ms": "ZIRV_CTX_DASH_IDLE_QUIET_MS",
        "roster_max_age_secs": "ZIRV_CTX_DASH_ROSTER_MAX_AGE_SECS",
        "workdir_roots": "ZIRV_CTX_DASH_WORKDIR_ROOTS",
        "scrollback_bytes": "ZIRV_CTX_DASH_SCROLLBACK_BYTES",
        "motion": "ZIRV_CTX_DASH_MOTION",
        "keymap": "ZIRV_CTX_DASH_KEYMAP",
        "truecolor": "ZIRV_CTX_DASH_TRUECOLOR",
        "notify": "ZIRV_CTX_DASH_NOTIFY",
    },
    "mail": {
        "enabled": "ZIRV_CTX_MAIL",
        "max_message_bytes": "ZIRV_CTX_MAIL_MAX_MESSAGE_BYTES",
        "max_delivered_bytes": "ZIRV_CTX_MAIL_MAX_DELIVERED_BYTES",
        "keep": "ZIRV_CTX_MAIL_KEEP",
    },
    "session": {"persistent": "ZIRV_CTX_SESSION_PERSISTENT"},
}
ENV_NAMES: dict[str, frozenset[str]] = {
    "dash": frozenset(
        {
            "ENABLED",
            "ZIRV_CTX_DASH",
            "ZIRV_CTX_DASH_IDLE_QUIET_MS",
            "ZIRV_CTX_DASH_KEYMAP",
            "ZIRV_CTX_DASH_MAX_PANES",
            "ZIRV_CTX_DASH_MOTION",
            "ZIRV_CTX_DASH_MOUSE",
            "ZIRV_CTX_DASH_NOTIFY",
            "ZIRV_CTX_DASH_ROSTER_MAX_AGE_SECS",
            "ZIRV_CTX_DASH_SCROLLBACK_BYTES",
            "ZIRV_CTX_DASH_SIDEBAR_COLS",
            "ZIRV_CTX_DASH_TRUECOLOR",
            "ZIRV_CTX_DASH_WORKDIR_ROOTS",
        }
    ),
    "mail": frozenset(
        {
            "ENABLED",
            "ZIRV_CTX_MAIL",
            "ZIRV_CTX_MAIL_KEEP",
            "ZIRV_CTX_MAIL_MAX_DELIVERED_BYTES",
            "ZIRV_CTX_MAIL_MAX_MESSAGE_BYTES",
        }
    ),
    "session": frozenset({"ZIRV_CTX_SESSION_PERSISTENT"}),
}
LOWERED: dict[str, tuple[str, ...]] = {"dash": ("motion", "truecolor"), "mail": (), "session": ()}
BOOL_WORDS: dict[str, tuple[str, ...]] = {"dash": ("truecolor",), "mail": (), "session": ()}
MODELLED_SECTIONS: tuple[str, ...] = ("dash", "mail", "session")
TOP_ENV: dict[str, str] = {"agent": "ZIRV_CTX_AGENT"}
REPO_FORBIDDEN_TOP: tuple[str, ...] = ("agent",)
REPO_FORBIDDEN: dict[str, tuple[str, ...]] = {
    "dash": ("*",),
    "mail": ("enabled", "max_delivered_bytes", "keep"),
    "session": ("*",),
    "handover": ("*",),
    "worker": ("*",),
}
REPO_ALLOWED_EXCEPTIONS: dict[str, tuple[str, ...]] = {"dash": ("idle_quiet_ms",)}
HELP: dict[str, str] = {
    "agent": "The default harness.",
    "handover": "The model for a handover tier (`handover.<agent>.<tier>`).",
    "dash.enabled": "Open the multiplexer on a capable terminal (false: single-pane session).",
    "dash.sidebar_cols": "Width of the sidebar roster in columns.",
    "dash.max_panes": "Cap on live panes; spawns past it are refused.",
    "dash.mouse": "Capture the mouse (false leaves selection to the terminal).",
    "dash.idle_quiet_ms": "Output quiet time after which a signal-less pane counts as idle.",
    "dash.roster_max_age_secs": "Restore rosters older than this are ignored.",
    "dash.workdir_roots": "Extra directories a delegated pane's workdir may sit in.",
    "dash.scrollback_bytes": "Scrollback kept per pane, bounded in bytes.",
    "dash.motion": "`full` animates the working spinners; `reduced` keeps every state change but draws a steady glyph, so nothing moves (and the chrome does not tick).",
    "dash.keymap": "Name of the shipped keymap preset (`default`, `tmux`).",
    "dash.truecolor": "24-bit colour to the outer terminal: `auto` detects it the way tmux does (COLORTERM, terminfo Tc/RGB, known TERMs); `true`/`false` override.",
    "dash.notify": "Tell the outer terminal when a pane you are not looking at needs you, is done or failed: `osc` (OSC 9/777, through tmux passthrough) is the default because a terminal that does not understand it ignores it silently, while `bell` beeps and `desktop` needs `notify-send`; `off` sends nothing.",
    "mail.enabled": "Keep and deliver mail between sessions.",
    "mail.max_message_bytes": "Bodies over this are cut (the whole text goes to a `full/` sidecar); at most 1 MiB so a reader never needs more than a bounded read.",
    "mail.max_delivered_bytes": "The most of a message typed into a pane when it is delivered.",
    "mail.keep": "Messages kept per mailbox (unread mail is never pruned: a mailbox holding this many refuses new mail).",
    "session.persistent": "`zirv chat` attaches to this repository's runtime (`zirv session`), which owns the panes, so they outlive the terminal (operator-only).",
}
SHOWN: dict[str, str] = {"agent": "first installed", "handover": "built-in ladder"}
