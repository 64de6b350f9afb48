"""The settings model, and every name derived from it for hints.

Each section is a pydantic-settings model whose environment variables follow the
upstream names (`ZIRV_CTX_DASH_MAX_PANES` for `dash.max_panes`, and the section's
own `enabled` flag drops the suffix: `ZIRV_CTX_DASH`). Error hints name keys,
variables and `zirv ctx config` commands through the functions here, so a hint
can never name a variable the model does not read.

The repository layer is untrusted: a checkout may not switch the dashboard on or
off, resize it, raise its own pane cap or pick which model spends the operator's
tokens. Those keys are *repo-forbidden* (`REPO_FORBIDDEN`).
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationInfo, field_validator
from pydantic.config import JsonDict
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from zirv_dash.config.env_source import ListEnvSource
from zirv_dash.config.policy import FOREIGN_SECTIONS as FOREIGN_SECTIONS
from zirv_dash.config.policy import MODELLED_SECTIONS as MODELLED_SECTIONS
from zirv_dash.config.policy import OPERATOR_FILE_SHOWN as OPERATOR_FILE_SHOWN
from zirv_dash.config.policy import REPO_ALLOWED_EXCEPTIONS as REPO_ALLOWED_EXCEPTIONS
from zirv_dash.config.policy import REPO_FORBIDDEN as REPO_FORBIDDEN
from zirv_dash.config.policy import REPO_FORBIDDEN_TOP as REPO_FORBIDDEN_TOP
from zirv_dash.config.policy import TOP_ENV as TOP_ENV
from zirv_dash.config.policy import gate_env as gate_env
from zirv_dash.config.policy import handover_env as handover_env
from zirv_dash.config.policy import handover_hint as handover_hint
from zirv_dash.config.policy import repo_settable as repo_settable
from zirv_dash.config.policy import section_hint as section_hint
from zirv_dash.config.policy import top_hint as top_hint
from zirv_dash.config.policy import unknown_key_words as unknown_key_words

OPERATOR_ONLY: JsonDict = {"operator_only": True}
"""A field's `json_schema_extra`: a repository checkout may not set it."""
REPO_SETTABLE: JsonDict = {"operator_only": False}
"""A field's `json_schema_extra` in an operator-only section: a checkout may set it."""


class _EnvFirst(BaseSettings):
    """Base: environment variables outrank values passed in from the TOML layers."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Lists from the environment are `:`-separated (or JSON): `config.env_source`.
        return (ListEnvSource(settings_cls), init_settings)


class DashSettings(_EnvFirst):
    """`[dash]`: the dashboard. Operator-only as a whole (a checkout may not switch
    it on or off, resize it or raise its own pane cap), but for its idle time."""

    model_config = SettingsConfigDict(
        env_prefix="ZIRV_CTX_DASH_", extra="ignore", use_attribute_docstrings=True
    )
    SECTION_OPERATOR_ONLY: ClassVar[bool] = True
    """Every key (and any unknown one) is operator-only unless marked REPO_SETTABLE."""
    LOWERED: ClassVar[tuple[str, ...]] = ("motion", "truecolor", "underline_styles")
    """Choice fields read in any case (`_word` lowers the text first)."""
    BOOL_WORDS: ClassVar[tuple[str, ...]] = ("truecolor", "underline_styles")
    """Choice fields that also take a TOML boolean, as the word `true`/`false`."""

    enabled: bool = Field(default=True, validation_alias=AliasChoices("ZIRV_CTX_DASH", "enabled"))
    """Open the multiplexer on a capable terminal (false: single-pane session)."""
    sidebar_cols: int = Field(default=28, ge=16, le=80)
    """Width of the sidebar roster in columns."""
    max_panes: int = Field(default=9, ge=1, le=64)
    """Cap on live panes; spawns past it are refused."""
    mouse: bool = True
    """Capture the mouse (false leaves selection to the terminal)."""
    idle_quiet_ms: int = Field(default=10_000, ge=100, json_schema_extra=REPO_SETTABLE)
    """Output quiet time after which a signal-less pane counts as idle."""
    roster_max_age_secs: int = Field(default=604_800, ge=0)
    """Restore rosters older than this are ignored."""
    workdir_roots: list[str] = Field(default_factory=list)
    """Extra directories a delegated pane's workdir may sit in, besides the built-in
    roots: the repository and its parent directory (for sibling checkouts; not
    when the parent is the filesystem root)."""
    scrollback_bytes: int = Field(default=8 * 1024 * 1024, ge=64 * 1024)
    """Scrollback kept per pane, bounded in bytes."""
    motion: Literal["full", "reduced"] = "full"
    """`full` animates the working spinners; `reduced` keeps every state change
    but draws a steady glyph, so nothing moves (and the chrome does not tick)."""
    keymap: str = "default"
    """Name of the shipped keymap preset (`default`, `tmux`)."""
    truecolor: Literal["auto", "true", "false"] = "auto"
    """24-bit colour to the outer terminal: `auto` detects it the way tmux does
    (COLORTERM, terminfo Tc/RGB, known TERMs); `true`/`false` override."""
    underline_styles: Literal["auto", "true", "false"] = "auto"
    """Curly/dotted/dashed underlines, underline colour and overline to the outer
    terminal: `auto` reads terminfo Smulx/Setulc/Smol and known terminals;
    `false` sends a plain underline instead."""
    notify: Literal["off", "bell", "osc", "desktop"] = "osc"
    """Tell the outer terminal when a pane you are not looking at needs you, is
    done or failed: `osc` (OSC 9/777, through tmux passthrough) is the default
    because a terminal that does not understand it ignores it silently, while
    `bell` beeps and `desktop` needs `notify-send`; `off` sends nothing."""

    @field_validator(*LOWERED, mode="before")
    @classmethod
    def _word(cls, value: object, info: ValidationInfo) -> object:
        # TOML booleans and env strings both reach here.
        if isinstance(value, bool) and info.field_name in cls.BOOL_WORDS:
            return "true" if value else "false"
        return value.lower() if isinstance(value, str) else value

    @property
    def animated(self) -> bool:
        """Spinners advance (`motion = "full"`); false under reduced motion."""
        return self.motion == "full"


class MailSettings(_EnvFirst):
    """`[mail]`: the mailbox. A checkout may size a message, but not switch mail
    off, change delivery, or shrink `keep` (which prunes every session's history)."""

    model_config = SettingsConfigDict(
        env_prefix="ZIRV_CTX_MAIL_", extra="ignore", use_attribute_docstrings=True
    )
    SECTION_OPERATOR_ONLY: ClassVar[bool] = False
    LOWERED: ClassVar[tuple[str, ...]] = ()
    BOOL_WORDS: ClassVar[tuple[str, ...]] = ()

    enabled: bool = Field(
        default=True,
        validation_alias=AliasChoices("ZIRV_CTX_MAIL", "enabled"),
        json_schema_extra=OPERATOR_ONLY,
    )
    """Keep and deliver mail between sessions."""
    max_message_bytes: int = Field(default=4096, ge=64, le=1024 * 1024)
    """Bodies over this are cut (the whole text goes to a `full/` sidecar); at
    most 1 MiB so a reader never needs more than a bounded read."""
    max_delivered_bytes: int = Field(
        default=4096, ge=64, le=1024 * 1024, json_schema_extra=OPERATOR_ONLY
    )
    """The most of a message typed into a pane when it is delivered."""
    keep: int = Field(default=50, ge=1, json_schema_extra=OPERATOR_ONLY)
    """Messages kept per mailbox: read ones past it are pruned, oldest first, but
    unread mail never is (a mailbox holding this many unread refuses new mail)."""


class SessionSettings(_EnvFirst):
    """`[session]`: the persistent runtime. Operator-only: whether cloning a
    repository is enough to make its sessions outlive the operator's terminal is
    not the checkout's decision."""

    model_config = SettingsConfigDict(
        env_prefix="ZIRV_CTX_SESSION_", extra="ignore", use_attribute_docstrings=True
    )
    SECTION_OPERATOR_ONLY: ClassVar[bool] = True
    LOWERED: ClassVar[tuple[str, ...]] = ()
    BOOL_WORDS: ClassVar[tuple[str, ...]] = ()

    persistent: bool = False
    """`zirv chat` attaches to this repository's runtime (`zirv session`), which
    owns the panes, so they outlive the terminal (operator-only)."""


class ScoreSettings(_EnvFirst):
    """`[score]`: the rot score (upstream's keys and defaults). A checkout may tune
    the thresholds of its own sessions, but only the operator chooses how far the
    dashboard may act on them (`auto`)."""

    model_config = SettingsConfigDict(
        env_prefix="ZIRV_CTX_SCORE_", extra="ignore", use_attribute_docstrings=True
    )
    SECTION_OPERATOR_ONLY: ClassVar[bool] = False
    LOWERED: ClassVar[tuple[str, ...]] = ("auto",)
    BOOL_WORDS: ClassVar[tuple[str, ...]] = ()

    window: int = Field(default=10, ge=1, le=1000)
    """Turns the signals look back over."""
    min_turns: int = Field(default=10, ge=1, le=1000)
    """Turns after the reply marker was first seen before its signal counts."""
    token_floor: int = Field(
        default=0, ge=0, validation_alias=AliasChoices("ZIRV_CTX_TOKEN_FLOOR", "token_floor")
    )
    """Context size below which a session is always healthy (0: from the ratio)."""
    token_ceiling: int = Field(
        default=0, ge=0, validation_alias=AliasChoices("ZIRV_CTX_TOKEN_CEILING", "token_ceiling")
    )
    """Context size from which a session is at least `compact` (0: from the ratio)."""
    token_floor_ratio: float = Field(default=0.5, ge=0.0, le=1.0)
    """The floor as a share of the model's real window."""
    token_ceiling_ratio: float = Field(default=0.8, ge=0.0, le=1.0)
    """The ceiling as a share of the model's real window."""
    advise_at: int = Field(default=40, ge=0, le=100)
    """Score from which the verdict is `advise` (⚠ on the row)."""
    compact_at: int = Field(default=60, ge=0, le=100)
    """Score from which the verdict is `compact`."""
    restart_at: int = Field(default=80, ge=0, le=100)
    """Score from which the verdict is `restart`."""
    auto: Literal["off", "advise", "compact", "restart"] = Field(
        default="advise", json_schema_extra=OPERATOR_ONLY
    )
    """How far the dashboard acts on a verdict: `advise` marks the row, `compact`
    also types the compact command at an input prompt, `restart` also offers a
    handover (operator-only)."""

    @field_validator(*LOWERED, mode="before")
    @classmethod
    def _word(cls, value: object) -> object:
        return value.lower() if isinstance(value, str) else value


class PaceSettings(_EnvFirst):
    """`[pace]`: usage windows. Operator-only: the budgets are the operator's plan."""

    model_config = SettingsConfigDict(
        env_prefix="ZIRV_CTX_PACE_", extra="ignore", use_attribute_docstrings=True
    )
    SECTION_OPERATOR_ONLY: ClassVar[bool] = True
    LOWERED: ClassVar[tuple[str, ...]] = ()
    BOOL_WORDS: ClassVar[tuple[str, ...]] = ()

    five_hour_budget_tokens: int = Field(
        default=0,
        ge=0,
        validation_alias=AliasChoices("ZIRV_CTX_FIVE_HOUR_BUDGET", "five_hour_budget_tokens"),
    )
    """Tokens the 5-hour window allows, for the estimator (0: no estimate)."""
    seven_day_budget_tokens: int = Field(
        default=0,
        ge=0,
        validation_alias=AliasChoices("ZIRV_CTX_SEVEN_DAY_BUDGET", "seven_day_budget_tokens"),
    )
    """Tokens the 7-day window allows, for the estimator (0: no estimate)."""
    count_cache_reads: bool = False
    """Count cache reads in the estimate (they are discounted, so left out)."""
    collector_max_age_secs: int = Field(default=900, ge=1)
    """A collector reading older than this gives way to the estimator."""


class FallbackSettings(_EnvFirst):
    """`[fallback]`: cross-harness fallback. Operator-only: which vendor account
    spends the work is not the checkout's decision."""

    model_config = SettingsConfigDict(
        env_prefix="ZIRV_CTX_FALLBACK_", extra="ignore", use_attribute_docstrings=True
    )
    SECTION_OPERATOR_ONLY: ClassVar[bool] = True
    LOWERED: ClassVar[tuple[str, ...]] = ()
    BOOL_WORDS: ClassVar[tuple[str, ...]] = ()

    enabled: bool = Field(
        default=True, validation_alias=AliasChoices("ZIRV_CTX_FALLBACK", "enabled")
    )
    """Steer new work off an exhausted harness; hand a pane stopped on a usage limit on."""
    order: list[str] = Field(default_factory=lambda: ["claude", "codex"])
    """Harnesses in the order work falls back through."""
    predictive_headroom_pct: float = Field(default=20.0, ge=0.0, le=100.0)
    """New work is steered off a harness with less headroom than this."""
    min_candidate_headroom_pct: float = Field(default=10.0, ge=0.0, le=100.0)
    """A harness needs at least this much headroom to take work."""
    unknown_headroom_pct: float = Field(default=25.0, ge=0.0, le=100.0)
    """Headroom assumed where no reading exists (0 opts out)."""


class NativeSettings(_EnvFirst):
    """`[native]`: the native pane. Operator-only: whether a model's commands may
    run without a sandbox is not the checkout's decision."""

    model_config = SettingsConfigDict(
        env_prefix="ZIRV_CTX_NATIVE_", extra="ignore", use_attribute_docstrings=True
    )
    SECTION_OPERATOR_ONLY: ClassVar[bool] = True
    LOWERED: ClassVar[tuple[str, ...]] = ()
    BOOL_WORDS: ClassVar[tuple[str, ...]] = ()

    require_sandbox: bool = False
    """Refuse a native pane's commands (`run_command`, `!` lines) when no sandbox
    (bubblewrap) is available, instead of running them unsandboxed (operator-only)."""


class McpSettings(_EnvFirst):
    """`[mcp]`: zirv's MCP bridge in the panes it launches. Operator-only: which
    tools a harness is handed is not the checkout's decision."""

    model_config = SettingsConfigDict(
        env_prefix="ZIRV_CTX_MCP_", extra="ignore", use_attribute_docstrings=True
    )
    SECTION_OPERATOR_ONLY: ClassVar[bool] = True
    LOWERED: ClassVar[tuple[str, ...]] = ()
    BOOL_WORDS: ClassVar[tuple[str, ...]] = ()

    auto_register: bool = True
    """claude and codex panes zirv launches get the bridge (`zirv ctx mcp serve`,
    bound to the pane's session) as a launch-only MCP server; the user's own
    settings are never edited."""


class Settings(BaseModel):
    """The merged, validated configuration for one process."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    agent: str | None = Field(
        default=None,
        json_schema_extra={**OPERATOR_ONLY, "env": "ZIRV_CTX_AGENT", "shown": "first installed"},
    )
    """The default harness."""
    dash: DashSettings = Field(default_factory=DashSettings)
    mail: MailSettings = Field(default_factory=MailSettings)
    session: SessionSettings = Field(default_factory=SessionSettings)
    score: ScoreSettings = Field(default_factory=ScoreSettings)
    pace: PaceSettings = Field(default_factory=PaceSettings)
    fallback: FallbackSettings = Field(default_factory=FallbackSettings)
    native: NativeSettings = Field(default_factory=NativeSettings)
    mcp: McpSettings = Field(default_factory=McpSettings)
    pricing: dict[str, dict[str, float]] = Field(
        default_factory=dict, json_schema_extra={**OPERATOR_ONLY, "shown": "built-in list prices"}
    )
    """A model's price in USD per million tokens (`pricing.<model>.input`, `output`,
    `cache_write`, `cache_read`), for the estimated cost."""
    handover: dict[str, dict[str, str]] = Field(
        default_factory=dict, json_schema_extra={**OPERATOR_ONLY, "shown": "built-in ladder"}
    )
    """The model for a handover tier (`handover.<agent>.<tier>`)."""
    worker: dict[str, str] = Field(default_factory=dict, json_schema_extra=OPERATOR_ONLY)
    """Upstream zirv's worker table, kept as it is."""
    sources: list[str] = Field(default_factory=list)
    """Files that contributed, for `zirv ctx config`-style diagnostics."""


# --- names of settings, for hints (every hint is built from the models) -------------

SECTION_MODELS: dict[str, type[BaseSettings]] = {
    "dash": DashSettings,
    "mail": MailSettings,
    "session": SessionSettings,
    "score": ScoreSettings,
    "pace": PaceSettings,
    "fallback": FallbackSettings,
    "native": NativeSettings,
    "mcp": McpSettings,
}
"""Sections with a settings model (`handover` and `worker` are free-form tables)."""
assert tuple(SECTION_MODELS) == MODELLED_SECTIONS, "config/table.py is stale (regenerate it)"


def env_var(section: str, name: str) -> str:
    """The environment variable the model reads `section.name` from: an explicit
    `ZIRV_*` alias (the sections' `enabled` flags), else env_prefix + name."""
    model = SECTION_MODELS[section]
    alias = model.model_fields[name].validation_alias
    if isinstance(alias, AliasChoices):
        for choice in alias.choices:
            if isinstance(choice, str) and choice.startswith("ZIRV_"):
                return choice
    return f"{model.model_config.get('env_prefix', '')}{name}".upper()


def all_keys() -> list[str]:
    """Every scalar key `zirv ctx config` can set (handover keys are patterns)."""
    keys = list(TOP_ENV)
    for section, model in SECTION_MODELS.items():
        keys.extend(f"{section}.{name}" for name in model.model_fields)
    return keys


def operator_hint(section: str, name: str) -> str:
    key = f"{section}.{name}"
    return (
        f"set it with `zirv ctx config set {key} <value>` (writes {OPERATOR_FILE_SHOWN}) "
        f"or {env_var(section, name)} instead"
    )


_FILE_ONLY: dict[type[BaseSettings], type[BaseSettings]] = {}


def file_only(model: type[BaseSettings]) -> type[BaseSettings]:
    """`model` validating only the values it is given (no environment): how
    `zirv ctx config` checks a value before writing it to a file."""
    cached = _FILE_ONLY.get(model)
    if cached is not None:
        return cached

    class FileOnly(model):  # type: ignore[valid-type, misc]
        @classmethod
        def settings_customise_sources(
            cls,
            settings_cls: type[BaseSettings],
            init_settings: PydanticBaseSettingsSource,
            env_settings: PydanticBaseSettingsSource,
            dotenv_settings: PydanticBaseSettingsSource,
            file_secret_settings: PydanticBaseSettingsSource,
        ) -> tuple[PydanticBaseSettingsSource, ...]:
            return (init_settings,)

    FileOnly.__name__ = model.__name__
    _FILE_ONLY[model] = FileOnly
    return FileOnly
