"""Every setting of the settings model as plain data, for start-up without pydantic.

GENERATED from `config/model.py` by `python -m zirv_dash.config.generate`: do not
edit (tests/test_config_table.py fails when this is stale).
"""

# ruff: noqa: E501

Kind = str | tuple[str, ...]
"""`bool`, `int`, `float`, `str`, `strs` (a list of strings), or the choices of a literal."""
Field = tuple[Kind, object, float | None, float | None]
"""(kind, default, lowest, highest) of one setting; the bounds are for numbers."""

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
        "underline_styles": (("auto", "true", "false"), "auto", None, None),
        "notify": (("off", "bell", "osc", "desktop"), "osc", None, None),
    },
    "mail": {
        "enabled": ("bool", True, None, None),
        "max_message_bytes": ("int", 4096, 64, 1048576),
        "max_delivered_bytes": ("int", 4096, 64, 1048576),
        "keep": ("int", 50, 1, None),
    },
    "session": {"persistent": ("bool", False, None, None)},
    "score": {
        "window": ("int", 10, 1, 1000),
        "min_turns": ("int", 10, 1, 1000),
        "token_floor": ("int", 0, 0, None),
        "token_ceiling": ("int", 0, 0, None),
        "token_floor_ratio": ("float", 0.5, 0.0, 1.0),
        "token_ceiling_ratio": ("float", 0.8, 0.0, 1.0),
        "advise_at": ("int", 40, 0, 100),
        "compact_at": ("int", 60, 0, 100),
        "restart_at": ("int", 80, 0, 100),
        "auto": (("off", "advise", "compact", "restart"), "advise", None, None),
    },
    "pace": {
        "five_hour_budget_tokens": ("int", 0, 0, None),
        "seven_day_budget_tokens": ("int", 0, 0, None),
        "count_cache_reads": ("bool", False, None, None),
        "collector_max_age_secs": ("int", 900, 1, None),
    },
    "fallback": {
        "enabled": ("bool", True, None, None),
        "order": ("strs", ("claude", "codex"), None, None),
        "predictive_headroom_pct": ("float", 20.0, 0.0, 100.0),
        "min_candidate_headroom_pct": ("float", 10.0, 0.0, 100.0),
        "unknown_headroom_pct": ("float", 25.0, 0.0, 100.0),
    },
    "native": {"require_sandbox": ("bool", False, None, None)},
    "mcp": {"auto_register": ("bool", True, None, None)},
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
        "underline_styles": "ZIRV_CTX_DASH_UNDERLINE_STYLES",
        "notify": "ZIRV_CTX_DASH_NOTIFY",
    },
    "mail": {
        "enabled": "ZIRV_CTX_MAIL",
        "max_message_bytes": "ZIRV_CTX_MAIL_MAX_MESSAGE_BYTES",
        "max_delivered_bytes": "ZIRV_CTX_MAIL_MAX_DELIVERED_BYTES",
        "keep": "ZIRV_CTX_MAIL_KEEP",
    },
    "session": {"persistent": "ZIRV_CTX_SESSION_PERSISTENT"},
    "score": {
        "window": "ZIRV_CTX_SCORE_WINDOW",
        "min_turns": "ZIRV_CTX_SCORE_MIN_TURNS",
        "token_floor": "ZIRV_CTX_TOKEN_FLOOR",
        "token_ceiling": "ZIRV_CTX_TOKEN_CEILING",
        "token_floor_ratio": "ZIRV_CTX_SCORE_TOKEN_FLOOR_RATIO",
        "token_ceiling_ratio": "ZIRV_CTX_SCORE_TOKEN_CEILING_RATIO",
        "advise_at": "ZIRV_CTX_SCORE_ADVISE_AT",
        "compact_at": "ZIRV_CTX_SCORE_COMPACT_AT",
        "restart_at": "ZIRV_CTX_SCORE_RESTART_AT",
        "auto": "ZIRV_CTX_SCORE_AUTO",
    },
    "pace": {
        "five_hour_budget_tokens": "ZIRV_CTX_FIVE_HOUR_BUDGET",
        "seven_day_budget_tokens": "ZIRV_CTX_SEVEN_DAY_BUDGET",
        "count_cache_reads": "ZIRV_CTX_PACE_COUNT_CACHE_READS",
        "collector_max_age_secs": "ZIRV_CTX_PACE_COLLECTOR_MAX_AGE_SECS",
    },
    "fallback": {
        "enabled": "ZIRV_CTX_FALLBACK",
        "order": "ZIRV_CTX_FALLBACK_ORDER",
        "predictive_headroom_pct": "ZIRV_CTX_FALLBACK_PREDICTIVE_HEADROOM_PCT",
        "min_candidate_headroom_pct": "ZIRV_CTX_FALLBACK_MIN_CANDIDATE_HEADROOM_PCT",
        "unknown_headroom_pct": "ZIRV_CTX_FALLBACK_UNKNOWN_HEADROOM_PCT",
    },
    "native": {"require_sandbox": "ZIRV_CTX_NATIVE_REQUIRE_SANDBOX"},
    "mcp": {"auto_register": "ZIRV_CTX_MCP_AUTO_REGISTER"},
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
            "ZIRV_CTX_DASH_UNDERLINE_STYLES",
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
    "score": frozenset(
        {
            "TOKEN_CEILING",
            "TOKEN_FLOOR",
            "ZIRV_CTX_SCORE_ADVISE_AT",
            "ZIRV_CTX_SCORE_AUTO",
            "ZIRV_CTX_SCORE_COMPACT_AT",
            "ZIRV_CTX_SCORE_MIN_TURNS",
            "ZIRV_CTX_SCORE_RESTART_AT",
            "ZIRV_CTX_SCORE_TOKEN_CEILING_RATIO",
            "ZIRV_CTX_SCORE_TOKEN_FLOOR_RATIO",
            "ZIRV_CTX_SCORE_WINDOW",
            "ZIRV_CTX_TOKEN_CEILING",
            "ZIRV_CTX_TOKEN_FLOOR",
        }
    ),
    "pace": frozenset(
        {
            "FIVE_HOUR_BUDGET_TOKENS",
            "SEVEN_DAY_BUDGET_TOKENS",
            "ZIRV_CTX_FIVE_HOUR_BUDGET",
            "ZIRV_CTX_PACE_COLLECTOR_MAX_AGE_SECS",
            "ZIRV_CTX_PACE_COUNT_CACHE_READS",
            "ZIRV_CTX_SEVEN_DAY_BUDGET",
        }
    ),
    "fallback": frozenset(
        {
            "ENABLED",
            "ZIRV_CTX_FALLBACK",
            "ZIRV_CTX_FALLBACK_MIN_CANDIDATE_HEADROOM_PCT",
            "ZIRV_CTX_FALLBACK_ORDER",
            "ZIRV_CTX_FALLBACK_PREDICTIVE_HEADROOM_PCT",
            "ZIRV_CTX_FALLBACK_UNKNOWN_HEADROOM_PCT",
        }
    ),
    "native": frozenset({"ZIRV_CTX_NATIVE_REQUIRE_SANDBOX"}),
    "mcp": frozenset({"ZIRV_CTX_MCP_AUTO_REGISTER"}),
}
LOWERED: dict[str, tuple[str, ...]] = {
    "dash": ("motion", "truecolor", "underline_styles"),
    "mail": (),
    "session": (),
    "score": ("auto",),
    "pace": (),
    "fallback": (),
    "native": (),
    "mcp": (),
}
BOOL_WORDS: dict[str, tuple[str, ...]] = {
    "dash": ("truecolor", "underline_styles"),
    "mail": (),
    "session": (),
    "score": (),
    "pace": (),
    "fallback": (),
    "native": (),
    "mcp": (),
}
MODELLED_SECTIONS: tuple[str, ...] = (
    "dash",
    "mail",
    "session",
    "score",
    "pace",
    "fallback",
    "native",
    "mcp",
)
TOP_ENV: dict[str, str] = {"agent": "ZIRV_CTX_AGENT"}
REPO_FORBIDDEN_TOP: tuple[str, ...] = ("agent",)
REPO_FORBIDDEN: dict[str, tuple[str, ...]] = {
    "dash": ("*",),
    "mail": ("enabled", "max_delivered_bytes", "keep"),
    "session": ("*",),
    "score": ("auto",),
    "pace": ("*",),
    "fallback": ("*",),
    "native": ("*",),
    "mcp": ("*",),
    "pricing": ("*",),
    "handover": ("*",),
    "worker": ("*",),
}
REPO_ALLOWED_EXCEPTIONS: dict[str, tuple[str, ...]] = {"dash": ("idle_quiet_ms",)}
HELP: dict[str, str] = {
    "agent": "The default harness.",
    "pricing": "A model's price in USD per million tokens (`pricing.<model>.input`, `output`, `cache_write`, `cache_read`), for the estimated cost.",
    "handover": "The model for a handover tier (`handover.<agent>.<tier>`).",
    "dash.enabled": "Open the multiplexer on a capable terminal (false: single-pane session).",
    "dash.sidebar_cols": "Width of the sidebar roster in columns.",
    "dash.max_panes": "Cap on live panes; spawns past it are refused.",
    "dash.mouse": "Capture the mouse (false leaves selection to the terminal).",
    "dash.idle_quiet_ms": "Output quiet time after which a signal-less pane counts as idle.",
    "dash.roster_max_age_secs": "Restore rosters older than this are ignored.",
    "dash.workdir_roots": "Extra directories a delegated pane's workdir may sit in, besides the built-in roots: the repository and its parent directory (for sibling checkouts; not when the parent is the filesystem root).",
    "dash.scrollback_bytes": "Scrollback kept per pane, bounded in bytes.",
    "dash.motion": "`full` animates the working spinners; `reduced` keeps every state change but draws a steady glyph, so nothing moves (and the chrome does not tick).",
    "dash.keymap": "Name of the shipped keymap preset (`default`, `tmux`).",
    "dash.truecolor": "24-bit colour to the outer terminal: `auto` detects it the way tmux does (COLORTERM, terminfo Tc/RGB, known TERMs); `true`/`false` override.",
    "dash.underline_styles": "Curly/dotted/dashed underlines, underline colour and overline to the outer terminal: `auto` reads terminfo Smulx/Setulc/Smol and known terminals; `false` sends a plain underline instead.",
    "dash.notify": "Tell the outer terminal when a pane you are not looking at needs you, is done or failed: `osc` (OSC 9/777, through tmux passthrough) is the default because a terminal that does not understand it ignores it silently, while `bell` beeps and `desktop` needs `notify-send`; `off` sends nothing.",
    "mail.enabled": "Keep and deliver mail between sessions.",
    "mail.max_message_bytes": "Bodies over this are cut (the whole text goes to a `full/` sidecar); at most 1 MiB so a reader never needs more than a bounded read.",
    "mail.max_delivered_bytes": "The most of a message typed into a pane when it is delivered.",
    "mail.keep": "Messages kept per mailbox: read ones past it are pruned, oldest first, but unread mail never is (a mailbox holding this many unread refuses new mail).",
    "session.persistent": "`zirv chat` attaches to this repository's runtime (`zirv session`), which owns the panes, so they outlive the terminal (operator-only).",
    "score.window": "Turns the signals look back over.",
    "score.min_turns": "Turns after the reply marker was first seen before its signal counts.",
    "score.token_floor": "Context size below which a session is always healthy (0: from the ratio).",
    "score.token_ceiling": "Context size from which a session is at least `compact` (0: from the ratio).",
    "score.token_floor_ratio": "The floor as a share of the model's real window.",
    "score.token_ceiling_ratio": "The ceiling as a share of the model's real window.",
    "score.advise_at": "Score from which the verdict is `advise` (⚠ on the row).",
    "score.compact_at": "Score from which the verdict is `compact`.",
    "score.restart_at": "Score from which the verdict is `restart`.",
    "score.auto": "How far the dashboard acts on a verdict: `advise` marks the row, `compact` also types the compact command at an input prompt, `restart` also offers a handover (operator-only).",
    "pace.five_hour_budget_tokens": "Tokens the 5-hour window allows, for the estimator (0: no estimate).",
    "pace.seven_day_budget_tokens": "Tokens the 7-day window allows, for the estimator (0: no estimate).",
    "pace.count_cache_reads": "Count cache reads in the estimate (they are discounted, so left out).",
    "pace.collector_max_age_secs": "A collector reading older than this gives way to the estimator.",
    "fallback.enabled": "Steer new work off an exhausted harness; hand a pane stopped on a usage limit on.",
    "fallback.order": "Harnesses in the order work falls back through.",
    "fallback.predictive_headroom_pct": "New work is steered off a harness with less headroom than this.",
    "fallback.min_candidate_headroom_pct": "A harness needs at least this much headroom to take work.",
    "fallback.unknown_headroom_pct": "Headroom assumed where no reading exists (0 opts out).",
    "native.require_sandbox": "Refuse a native pane's commands (`run_command`, `!` lines) when no sandbox (bubblewrap) is available, instead of running them unsandboxed (operator-only).",
    "mcp.auto_register": "claude and codex panes zirv launches get the bridge (`zirv ctx mcp serve`, bound to the pane's session) as a launch-only MCP server; the user's own settings are never edited.",
}
SHOWN: dict[str, str] = {
    "agent": "first installed",
    "pricing": "built-in list prices",
    "handover": "built-in ladder",
}
