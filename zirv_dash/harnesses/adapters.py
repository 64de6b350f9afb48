"""Harness adapters: how to launch, steer and quit each supported agent CLI.

One `Adapter` per harness. The data mirrors what each vendor CLI accepts; where a
detail is not verified (a quit command, a model flag) the field is empty and the
dashboard degrades (no quit sequence → grace wait then kill; no model flag → the
model is not passed) instead of guessing.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum


class PromptStyle(Enum):
    POSITIONAL = "positional"  # <bin> [prompt] …
    FLAG = "flag"  # <bin> <prompt_flag> <prompt> …


class SystemPromptChannel(Enum):
    NONE = "none"
    FILE_FLAG = "file_flag"  # e.g. claude --append-system-prompt-file <path>
    INLINE_FLAG = "inline_flag"  # e.g. kimi --system-prompt <text>
    CODEX_CONFIG = "codex_config"  # codex -c developer_instructions=<json>


@dataclass(frozen=True)
class Adapter:
    name: str
    binary: str
    prompt_style: PromptStyle = PromptStyle.POSITIONAL
    prompt_flag: str = ""
    model_flag: str = ""
    quit_sequence: bytes = b""
    resume_flag: str = ""
    """Flag that resumes a conversation by id (claude --resume)."""
    session_pin_flag: str = ""
    """Flag that makes the harness use *our* session id (claude --session-id)."""
    turn_signal: bool = False
    defer_submit: bool = False
    """Send the Enter of an injected line as a separate write (codex)."""
    system_prompt: SystemPromptChannel = SystemPromptChannel.NONE
    system_prompt_flag: str = ""
    interactive_args: tuple[str, ...] = ()
    headless_args: tuple[str, ...] = ()
    vendors: tuple[str, ...] = ()
    """Model vendors this harness can run (see catalogue)."""
    builtin: bool = False
    """Ships with zirv (no vendor CLI needed)."""
    extra_env: dict[str, str] = field(default_factory=dict)

    # -- argv ---------------------------------------------------------------------

    def base_argv(self) -> list[str]:
        if self.name == "demo":
            return [sys.executable, "-m", "zirv_dash.harnesses.demo_agent"]
        if self.name == "shell":
            return [shell_path()]
        return [self.binary]

    def model_args(self, model: str | None) -> list[str]:
        if not model or not self.model_flag:
            return []
        return [self.model_flag, model]

    def interactive_argv(
        self,
        prompt: str | None = None,
        model: str | None = None,
        extra: Sequence[str] = (),
        headless: bool = False,
    ) -> list[str]:
        """The full argv. The prompt is data: it is only ever one argv element."""
        argv = self.base_argv()
        if prompt and self.name != "shell":
            if self.prompt_style is PromptStyle.FLAG:
                argv += [self.prompt_flag, prompt]
            else:
                argv.append(prompt)
        argv += self.model_args(model)
        argv += list(self.headless_args if headless else self.interactive_args)
        argv += list(extra)
        return argv

    def resume_args(self, session_id: str) -> list[str]:
        return [self.resume_flag, session_id] if self.resume_flag else []

    def pin_args(self, session_id: str) -> list[str]:
        return [self.session_pin_flag, session_id] if self.session_pin_flag else []

    def system_prompt_args(self, text: str, file_path: str | None) -> list[str] | None:
        """Args that carry `text` as a system prompt, or None if there is no channel."""
        if self.system_prompt is SystemPromptChannel.FILE_FLAG and file_path:
            return [self.system_prompt_flag, file_path]
        if self.system_prompt is SystemPromptChannel.INLINE_FLAG:
            return [self.system_prompt_flag, text]
        if self.system_prompt is SystemPromptChannel.CODEX_CONFIG:
            return ["-c", f"developer_instructions={json.dumps(text)}"]
        return None

    # -- availability ---------------------------------------------------------------

    def installed(self, path: str | None = None) -> bool:
        """The CLI is on `path` (a PATH value; None: this process's PATH)."""
        if self.builtin:
            return True
        return shutil.which(self.binary, path=path) is not None

    def missing_words(self) -> str:
        """Why it cannot start when it is not installed: the spawn dialog's words,
        also what `zirv agent` says instead of exec's bare `[Errno 2]`."""
        return f"{self.name} is not installed: `{self.binary}` is not on PATH"


def shell_path() -> str:
    shell = os.environ.get("SHELL", "")
    if shell and os.path.isabs(shell) and os.access(shell, os.X_OK):
        return shell
    return "/bin/sh"


# README "Models per harness": these harnesses run any catalogue vendor.
_ANY_VENDOR: tuple[str, ...] = (
    "anthropic",
    "openai",
    "google",
    "xai",
    "qwen",
    "moonshot",
    "mistral",
    "deepseek",
    "zhipu",
    "minimax",
    "meta",
    "amazon",
)


# Codex 0.171 otherwise starts a detached app-server daemon (its own session,
# reparented to init) that outlives the pane, its quit and the dashboard. An
# unknown `-c` key is ignored by older versions, unlike an unknown flag.
_CODEX_IN_PROCESS: tuple[str, ...] = ("-c", "features.daemon_auto_start=false")


_ADAPTERS: tuple[Adapter, ...] = (
    Adapter(
        "claude",
        "claude",
        model_flag="--model",
        quit_sequence=b"/exit\r",
        resume_flag="--resume",
        session_pin_flag="--session-id",
        turn_signal=True,
        system_prompt=SystemPromptChannel.FILE_FLAG,
        system_prompt_flag="--append-system-prompt-file",
        interactive_args=("--permission-mode", "default"),
        headless_args=("--permission-mode", "dontAsk"),
        vendors=("anthropic",),
    ),
    Adapter(
        "codex",
        "codex",
        model_flag="--model",
        quit_sequence=b"/quit\r",
        defer_submit=True,
        system_prompt=SystemPromptChannel.CODEX_CONFIG,
        interactive_args=(
            "--ask-for-approval",
            "on-request",
            "--sandbox",
            "workspace-write",
            *_CODEX_IN_PROCESS,
        ),
        headless_args=("--ask-for-approval", "never", *_CODEX_IN_PROCESS),
        vendors=("openai",),
    ),
    # Checked against the real CLIs (versions in the README's harness table):
    # flags from each one's --help, quit sequences typed at its input prompt.
    # A resume flag is set only where resuming by *our* session id works (the
    # roster restores with it): gemini/qwen could pin one (--session-id) but the
    # dashboard pins only claude's; opencode's and droid's ids are their own.
    Adapter(
        "gemini",
        "gemini",
        model_flag="--model",
        quit_sequence=b"/quit\r",
        defer_submit=True,  # a line and its Enter in one read is a paste to it
        vendors=("google",),
    ),
    Adapter(
        "opencode",
        "opencode",
        prompt_style=PromptStyle.FLAG,
        prompt_flag="--prompt",
        model_flag="--model",  # provider/model
        quit_sequence=b"\x04",  # its app_exit key; it has no draft to lose on exit
        vendors=_ANY_VENDOR,
    ),
    Adapter(
        "pi",
        "pi",
        model_flag="--model",
        quit_sequence=b"/quit\r",
        # pi cannot be launched with an id we choose, so the id we record is no
        # conversation of its own: `--session <ours>` fails with "No session
        # found". No resume, then; a restored pi pane gets the restart prompt.
        resume_flag="",
        system_prompt=SystemPromptChannel.INLINE_FLAG,
        system_prompt_flag="--append-system-prompt",
        vendors=_ANY_VENDOR,
    ),
    Adapter(
        "copilot",
        "copilot",
        prompt_style=PromptStyle.FLAG,
        prompt_flag="-i",
        model_flag="--model",
        quit_sequence=b"/quit\r",
        resume_flag="--session-id",  # resumes an existing id, or names a new session
        session_pin_flag="--session-id",
        headless_args=("--allow-all-tools",),
        vendors=_ANY_VENDOR,
    ),
    Adapter(
        "droid",
        "droid",
        # Only `droid exec` takes a model (-m); the interactive CLI has no flag.
        system_prompt=SystemPromptChannel.FILE_FLAG,
        system_prompt_flag="--append-system-prompt-file",
        vendors=_ANY_VENDOR,
    ),
    Adapter(
        "qwen",
        "qwen",
        # A positional prompt runs one-shot and exits; -i keeps it interactive.
        prompt_style=PromptStyle.FLAG,
        prompt_flag="-i",
        model_flag="--model",
        quit_sequence=b"/quit\r",
        defer_submit=True,
        system_prompt=SystemPromptChannel.INLINE_FLAG,
        system_prompt_flag="--append-system-prompt",
        vendors=("qwen",),
    ),
    Adapter(
        "kimi",
        "kimi",
        system_prompt=SystemPromptChannel.INLINE_FLAG,
        system_prompt_flag="--system-prompt",
        vendors=("moonshot",),
    ),
    Adapter("cursor-agent", "cursor-agent"),
    Adapter("goose", "goose", vendors=_ANY_VENDOR),
    Adapter(
        "grok",
        "grok",
        model_flag="--model",
        quit_sequence=b"exit\r",  # its banner: "'exit' to quit"
        defer_submit=True,
        vendors=("xai",),
    ),
    Adapter("muse", "muse", vendors=("meta",)),
    Adapter("shell", "sh", builtin=True),
    Adapter(
        "demo",
        "demo",
        quit_sequence=b"/quit\r",
        model_flag="--model",
        builtin=True,
        vendors=("demo",),
    ),
)

ADAPTERS: dict[str, Adapter] = {a.name: a for a in _ADAPTERS}
VENDOR_HARNESSES: tuple[str, ...] = tuple(a.name for a in _ADAPTERS if not a.builtin)
"""The 13 vendor harnesses, in default-preference order."""


def get(name: str) -> Adapter | None:
    return ADAPTERS.get(name)


def names() -> list[str]:
    return list(ADAPTERS)


def resolve_default(configured: str | None, enabled: set[str] | None = None) -> tuple[str, str]:
    """Pick the default agent. Returns (name, reason) — the reason is shown to the user.

    Order: `agent` from config / `ZIRV_CTX_AGENT`, else the first enabled vendor
    harness on PATH, else the built-in `demo`.
    """
    if configured:
        return configured, "configured"
    for name in VENDOR_HARNESSES:
        adapter = ADAPTERS[name]
        if (enabled is None or name in enabled) and adapter.installed():
            return name, f"first installed harness ({adapter.binary} on PATH)"
    return "demo", "no agent CLI found on PATH; using the built-in demo agent"
