"""zirv's hooks in the harnesses' own settings files: what is there, and the merge adding them.

- Claude Code (@anthropic-ai/claude-code 2.1.197, the settings schema in its
  binary): `<config>/settings.json`, `<config>` being `$CLAUDE_CONFIG_DIR` or
  `~/.claude`; `hooks` is a record of event → array of matcher groups
  `{matcher?, hooks: [{type: "command", command, timeout?}]}`; `statusLine` is
  `{type: "command", command, padding?, refreshInterval?}`, run through a shell
  with the statusline JSON on stdin.
- Codex (@openai/codex 0.171.0, the native binary's strings): `~/.codex/hooks.json`
  (`$CODEX_HOME` moves it) with the same matcher groups
  (`ConfiguredHookMatcherGroup`: matcher, hooks) under `hooks`, events including
  `Stop`. Codex asks its user to review new hooks with `/hooks`, so zirv only
  merges into a hooks file that already exists; it never creates one.

The merge adds zirv's Stop hook (`zirv ctx hook stop`) once, recognised by its
command, and wraps the statusline in the usage tee (`zirv ctx usage tee -- sh -c
'<theirs>'`, so pipes in their command stay theirs) or installs the bare tee
when there is none. Every other key, hook and order is kept. A file that is not
a JSON object of that shape is refused with its line and column, never
rewritten.
"""

from __future__ import annotations

import copy
import json
import os
import shlex
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

STOP_COMMAND = "zirv ctx hook stop"
TEE = "zirv ctx usage tee"
SETTINGS_CAP = 4 * 1024 * 1024


class SetupError(ValueError):
    """A settings file that cannot be merged into; the message names the file and where."""


@dataclass(frozen=True)
class Target:
    harness: str
    path: Path
    statusline: bool
    """This file carries a statusline (Claude Code's settings)."""
    create: bool
    """Create the file when it does not exist."""


@dataclass(frozen=True)
class Plan:
    target: Target
    exists: bool
    stop_hook: bool
    statusline: str
    """`none`, `tee`, `wrapped`, `foreign` (theirs, not wrapped), `–` (no statusline here)."""
    before: str | None
    after: str | None
    """The merged text, None when nothing would change (or nothing may be done)."""
    problem: str | None = None
    note: str | None = None


def targets(home: Path | None = None) -> list[Target]:
    home = home or Path.home()
    claude_dir = os.environ.get("CLAUDE_CONFIG_DIR")
    claude = Path(claude_dir) if claude_dir and Path(claude_dir).is_absolute() else home / ".claude"
    codex_dir = os.environ.get("CODEX_HOME")
    codex = Path(codex_dir) if codex_dir and Path(codex_dir).is_absolute() else home / ".codex"
    return [
        Target("claude", claude / "settings.json", statusline=True, create=True),
        Target("codex", codex / "hooks.json", statusline=False, create=False),
    ]


def plan(target: Target) -> Plan:
    """What the file holds and what the merge would make of it."""
    try:
        before = read_text(target.path)
    except SetupError as exc:
        return Plan(target, True, False, "–", None, None, problem=str(exc))
    if before is None and not target.create:
        note = f"{target.path} does not exist; create it to let zirv add its hook there"
        return Plan(target, False, False, "–", None, None, note=note)
    try:
        data = _parse(target.path, before)
        merged = merge(data, target.statusline)
    except SetupError as exc:
        return Plan(target, before is not None, False, "–", before, None, problem=str(exc))
    after = json.dumps(merged, indent=2, ensure_ascii=False) + "\n"
    changed = merged != data or before is None
    return Plan(
        target,
        exists=before is not None,
        stop_hook=has_stop_hook(data),
        statusline=statusline_kind(data) if target.statusline else "–",
        before=before,
        after=after if changed else None,
    )


def read_text(path: Path) -> str | None:
    """The file's text (None: it does not exist). A symlink is followed (dotfiles),
    but one pointing nowhere, a FIFO, a device or an oversized file is refused."""
    if path.is_symlink() and not path.exists():
        raise SetupError(f"{path}: a symlink to {os.readlink(path)}, which does not exist")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SetupError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise SetupError(f"{path}: not a regular file; not touched")
        if st.st_size > SETTINGS_CAP:
            raise SetupError(f"{path}: larger than {SETTINGS_CAP} bytes; not touched")
        data = os.read(fd, SETTINGS_CAP + 1)
    except OSError as exc:
        raise SetupError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    finally:
        os.close(fd)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SetupError(f"{path}: not UTF-8 text ({exc}); not touched") from exc


def _parse(path: Path, text: str | None) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    try:
        data = json.loads(text, object_pairs_hook=_unique, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise SetupError(
            f"{path}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); "
            "not touched"
        ) from exc
    except RecursionError as exc:
        raise SetupError(f"{path}: nested too deeply; not touched") from exc
    except ValueError as exc:  # a key given twice, NaN or Infinity: JSON that loses data
        raise SetupError(f"{path}: {exc}; not touched") from exc
    if not isinstance(data, dict):
        raise SetupError(f"{path}: the top level is not a JSON object; not touched")
    _check_shape(path, data)
    return data


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} is given twice (one value would be lost)")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _check_shape(path: Path, data: dict[str, Any]) -> None:
    status = data.get("statusLine")
    if status is not None:
        # Claude Code's schema: {type: "command", command: string, …}.
        ok = isinstance(status, dict) and status.get("type", "command") == "command"
        if not ok or not isinstance(status.get("command", ""), str):
            raise SetupError(
                f'{path}: `statusLine` is not a {{type: "command", command: …}} object; not touched'
            )
    hooks = data.get("hooks")
    if hooks is None:
        return
    if not isinstance(hooks, dict):
        raise SetupError(f"{path}: `hooks` is not an object; not touched")
    stop = hooks.get("Stop")
    if stop is not None and not isinstance(stop, list):
        raise SetupError(f"{path}: `hooks.Stop` is not a list; not touched")
    for n, group in enumerate(stop or []):
        if not isinstance(group, dict) or not isinstance(group.get("hooks", []), list):
            raise SetupError(f"{path}: `hooks.Stop[{n}]` is not a matcher group; not touched")


def is_stop_hook(hook: object) -> bool:
    """zirv's Stop hook however it is spelled (`/usr/local/bin/zirv ctx hook stop`,
    or the exec form with `args`)."""
    if not isinstance(hook, dict) or not isinstance(hook.get("command"), str):
        return False
    try:
        words = shlex.split(hook["command"])
    except ValueError:
        return False
    args = hook.get("args")
    if isinstance(args, list) and all(isinstance(a, str) for a in args):
        words += args
    return (
        len(words) == 4
        and os.path.basename(words[0]) == "zirv"
        and words[1:]
        == [
            "ctx",
            "hook",
            "stop",
        ]
    )


def has_stop_hook(data: dict[str, Any]) -> bool:
    hooks = data.get("hooks")
    groups = hooks.get("Stop", []) if isinstance(hooks, dict) else []
    return any(
        is_stop_hook(h)
        for group in groups
        if isinstance(group, dict)
        for h in group.get("hooks", [])
    )


def statusline_kind(data: dict[str, Any]) -> str:
    status = data.get("statusLine")
    if not isinstance(status, dict) or not str(status.get("command", "")).strip():
        return "none"
    command = str(status["command"]).strip()
    if command == TEE:
        return "tee"
    return "wrapped" if command.startswith(TEE + " ") else "foreign"


def merge(data: dict[str, Any], statusline: bool) -> dict[str, Any]:
    """`data` with zirv's Stop hook (and, for Claude Code, the usage tee) added."""
    out = copy.deepcopy(data)
    if not has_stop_hook(out):
        hooks = out.setdefault("hooks", {})
        hooks.setdefault("Stop", []).append(
            {"hooks": [{"type": "command", "command": STOP_COMMAND}]}
        )
    if statusline:
        kind = statusline_kind(out)
        if kind == "none":
            out["statusLine"] = {**(out.get("statusLine") or {}), "type": "command", "command": TEE}
        elif kind == "foreign":
            theirs = str(out["statusLine"]["command"])
            out["statusLine"] = {
                **out["statusLine"],
                "command": f"{TEE} -- sh -c {shlex.quote(theirs)}",
            }
    return out
