"""The native session's tools, every path contained in the workdir.

Containment is checked on resolved paths (symlinks followed), so a link inside
the workdir that points outside is refused like `../`. Reads and listings are
bounded; writes return a unified diff; commands run in the workdir with a time
and output bound, from an allow-listed environment, under `bwrap` when it is
installed (`native.sandbox` says exactly what a command can see).
"""

from __future__ import annotations

import asyncio
import contextlib
import difflib
import os
import signal
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zirv_dash import paths
from zirv_dash.native.files import FileRefused, links_note, read_regular, replace_atomically
from zirv_dash.native.protocol import ToolSpec
from zirv_dash.native.sandbox import bwrap_argv, command_env, find_bwrap
from zirv_dash.native.search import MAX_READ, in_thread, search_tree
from zirv_dash.native.search import SKIP_DIRS as SKIP_DIRS  # `filerefs` reads it here

MAX_LIST = 500
MAX_COMMAND_OUTPUT = 64 * 1024
COMMAND_TIMEOUT = 60.0
KILL_WAIT = 5.0
_LINKS_OK: ContextVar[bool] = ContextVar("links_ok", default=False)
"""The running call's approval said the file it touches has other names."""


class ToolFailure(Exception):
    """A tool refused or failed; the message goes back to the model."""


@dataclass(frozen=True)
class ToolResult:
    ok: bool
    output: str
    display: str = "text"  # text | diff | error | cancelled


@dataclass(frozen=True)
class ToolDef:
    spec: ToolSpec
    mutating: bool
    run: Callable[[Workdir, Mapping[str, Any]], Awaitable[ToolResult]]


UNSANDBOXED = "unsandboxed: bwrap is not installed; the command runs with your own access"
SANDBOX_REQUIRED = (
    "refused: no sandbox is available (bwrap is not installed) and [native] require_sandbox = true"
)


class Workdir:
    def __init__(self, root: Path, *, sandbox: bool = True, require_sandbox: bool = False) -> None:
        self.root = root.resolve(strict=True)
        self.bwrap = find_bwrap() if sandbox else None
        self.home = Path.home().resolve()
        self.require_sandbox = require_sandbox
        """The operator's `[native] require_sandbox`: no command runs unsandboxed."""

    @property
    def sandbox(self) -> bool:
        """Commands run under bubblewrap (False: unsandboxed, and said so)."""
        return self.bwrap is not None

    def commands(self) -> str:
        """How commands run here, in the words `/status` uses."""
        if self.sandbox:
            return "commands sandboxed (bwrap)"
        return "commands refused (no sandbox)" if self.require_sandbox else "commands unsandboxed"

    def inside(self, rel: object, *, must_exist: bool = True) -> Path:
        if not isinstance(rel, str) or not rel or "\0" in rel:
            raise ToolFailure("path: must be a non-empty string")
        candidate = Path(rel)
        target = candidate if candidate.is_absolute() else self.root / candidate
        resolved = target.resolve(strict=False)
        if resolved != self.root and not resolved.is_relative_to(self.root):
            raise ToolFailure(f"{rel}: outside the workdir (resolved to {resolved})")
        if must_exist and not resolved.exists():
            raise ToolFailure(f"{rel}: does not exist")
        return resolved

    def show(self, path: Path) -> str:
        return "." if path == self.root else str(path.relative_to(self.root))


def _arg(args: Mapping[str, Any], key: str, default: str | None = None) -> str:
    value = args.get(key, default)
    if not isinstance(value, str):
        raise ToolFailure(f"{key}: must be a string")
    return value


def _read_text(wd: Workdir, path: Path) -> str:
    try:
        data = read_regular(path, MAX_READ, links_ok=_LINKS_OK.get(), root=wd.root)
    except FileRefused as exc:
        raise ToolFailure(str(exc)) from exc
    if b"\0" in data:
        raise ToolFailure(f"{path.name}: binary file")
    return data.decode("utf-8", "replace")


async def read_file(wd: Workdir, args: Mapping[str, Any]) -> ToolResult:
    path = wd.inside(_arg(args, "path"))
    return ToolResult(True, await asyncio.to_thread(_read_text, wd, path))


async def list_dir(wd: Workdir, args: Mapping[str, Any]) -> ToolResult:
    path = wd.inside(_arg(args, "path", "."))
    if not path.is_dir():
        raise ToolFailure(f"{wd.show(path)}: not a directory")
    names = sorted(os.listdir(path))
    shown = [n + ("/" if (path / n).is_dir() else "") for n in names[:MAX_LIST]]
    more = f"\n… {len(names) - MAX_LIST} more" if len(names) > MAX_LIST else ""
    return ToolResult(True, ("\n".join(shown) or "(empty)") + more)


async def search_text(wd: Workdir, args: Mapping[str, Any]) -> ToolResult:
    needle = _arg(args, "pattern")
    if not needle:
        raise ToolFailure("pattern: must not be empty")
    root = wd.inside(_arg(args, "path", "."))
    return ToolResult(True, await in_thread(lambda stop: search_tree(root, needle, wd.show, stop)))


def unified(rel: str, old: str, new: str) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=f"a/{rel}",
        tofile=f"b/{rel}",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _write(wd: Workdir, rel: str, new: str, old: str | None) -> ToolResult:
    path = wd.inside(rel, must_exist=False)
    if path.is_dir():
        raise ToolFailure(f"{rel}: is a directory")
    before = _read_text(wd, path) if os.path.lexists(path) else ""
    if old is not None:
        count = before.count(old)
        if count != 1:
            raise ToolFailure(f"{rel}: old_text found {count} times (needs exactly once)")
        new = before.replace(old, new, 1)
    try:
        # A new file renamed into place: never a write through a hard link.
        replace_atomically(wd.root, path, new)
    except FileRefused as exc:
        raise ToolFailure(str(exc)) from exc
    diff = unified(wd.show(path), before, new)
    return ToolResult(True, diff or f"{rel}: unchanged", "diff" if diff else "text")


async def write_file(wd: Workdir, args: Mapping[str, Any]) -> ToolResult:
    rel, content = _arg(args, "path"), _arg(args, "content")
    return await asyncio.to_thread(_write, wd, rel, content, None)


async def edit_file(wd: Workdir, args: Mapping[str, Any]) -> ToolResult:
    rel, old, new = _arg(args, "path"), _arg(args, "old_text"), _arg(args, "new_text")
    if not old:
        raise ToolFailure("old_text: must not be empty")
    return await asyncio.to_thread(_write, wd, rel, new, old)


def command_argv(wd: Workdir, command: str) -> list[str]:
    if wd.bwrap is None:
        return ["/bin/sh", "-c", command]
    secrets = (paths.operator_dir(), paths.state_dir())
    return bwrap_argv(wd.bwrap, wd.root, wd.home, command, secrets)


async def run_command(
    wd: Workdir, args: Mapping[str, Any], timeout: float = COMMAND_TIMEOUT
) -> ToolResult:
    command = _arg(args, "command")
    if wd.bwrap is None and wd.require_sandbox:
        raise ToolFailure(f"run_command: {SANDBOX_REQUIRED}")
    proc = await asyncio.create_subprocess_exec(
        *command_argv(wd, command),
        cwd=wd.root,
        env=command_env(str(wd.home)),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    assert proc.stdout is not None
    chunks: list[bytes] = []
    size = 0
    truncated = False

    async def drain() -> None:
        nonlocal size, truncated
        assert proc.stdout is not None
        while chunk := await proc.stdout.read(65536):
            if size < MAX_COMMAND_OUTPUT:
                chunks.append(chunk[: MAX_COMMAND_OUTPUT - size])
            else:
                truncated = True
            size += len(chunk)
        await proc.wait()

    try:
        await asyncio.wait_for(drain(), timeout)
    except TimeoutError:
        _kill(proc.pid)
        await proc.wait()
        text = b"".join(chunks).decode("utf-8", "replace")
        return ToolResult(False, f"{text}\n[killed after {timeout:g}s]", "error")
    except asyncio.CancelledError:
        _kill(proc.pid)
        # Stopped means gone: the cancel returns once the process is reaped (its
        # sandbox dies with it: --die-with-parent, its own PID namespace).
        with contextlib.suppress(asyncio.CancelledError, TimeoutError):
            await asyncio.wait_for(asyncio.shield(proc.wait()), KILL_WAIT)
        raise
    text = b"".join(chunks).decode("utf-8", "replace")
    if truncated or size > MAX_COMMAND_OUTPUT:
        text += f"\n[output cut at {MAX_COMMAND_OUTPUT} of {size} bytes]"
    code = proc.returncode
    return ToolResult(
        code == 0, f"{text}\n[exit {code}]".lstrip("\n"), "text" if code == 0 else "error"
    )


def _kill(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _spec(name: str, description: str, props: dict[str, str], required: list[str]) -> ToolSpec:
    schema = {
        "type": "object",
        "properties": {k: {"type": "string", "description": v} for k, v in props.items()},
        "required": required,
    }
    return ToolSpec(name, description, schema)


TOOLS: dict[str, ToolDef] = {
    "read_file": ToolDef(
        _spec("read_file", "Read a text file in the workdir.", {"path": "relative path"}, ["path"]),
        False,
        read_file,
    ),
    "list_dir": ToolDef(
        _spec("list_dir", "List a directory in the workdir.", {"path": "relative path"}, []),
        False,
        list_dir,
    ),
    "search_text": ToolDef(
        _spec(
            "search_text",
            "Find lines containing a literal text.",
            {"pattern": "text to find", "path": "directory"},
            ["pattern"],
        ),
        False,
        search_text,
    ),
    "write_file": ToolDef(
        _spec(
            "write_file",
            "Create or replace a file in the workdir.",
            {"path": "relative path", "content": "the whole new content"},
            ["path", "content"],
        ),
        True,
        write_file,
    ),
    "edit_file": ToolDef(
        _spec(
            "edit_file",
            "Replace one exact occurrence of old_text with new_text.",
            {"path": "relative path", "old_text": "exact text", "new_text": "replacement"},
            ["path", "old_text", "new_text"],
        ),
        True,
        edit_file,
    ),
    "run_command": ToolDef(
        _spec(
            "run_command",
            "Run a shell command in the workdir (bounded time and output).",
            {"command": "shell command"},
            ["command"],
        ),
        True,
        run_command,
    ),
}


def refusal(wd: Workdir, name: str) -> str | None:
    """Why `name` cannot run here at all (asked before any approval), or None."""
    if name == "run_command" and wd.bwrap is None and wd.require_sandbox:
        return f"{name}: {SANDBOX_REQUIRED}"
    return None


def approval_note(wd: Workdir, name: str, args: Mapping[str, Any]) -> str:
    """What the approval must say beyond the call itself ('' when nothing). A
    read with a note needs an approval although reads are otherwise free."""
    if name == "run_command" and wd.bwrap is None:
        return UNSANDBOXED
    rel = args.get("path")
    if name in ("read_file", "write_file", "edit_file") and isinstance(rel, str):
        try:
            path = wd.inside(rel, must_exist=False)
        except ToolFailure:
            return ""  # refused when it runs
        note = links_note(path, rel)
        if note and name != "read_file":
            note += "; the write replaces this name only, the other keeps the old content"
        return note
    return ""


def specs() -> tuple[ToolSpec, ...]:
    return tuple(tool.spec for tool in TOOLS.values())


async def execute(
    wd: Workdir, name: str, args: Mapping[str, Any], *, links_ok: bool = False
) -> ToolResult:
    """Run a call. `links_ok`: its approval said its file has other names (a
    hard-linked file is refused otherwise)."""
    tool = TOOLS.get(name)
    if tool is None:
        return ToolResult(False, f"unknown tool {name!r}", "error")
    token = _LINKS_OK.set(links_ok)
    try:
        return await tool.run(wd, args)
    except ToolFailure as exc:
        return ToolResult(False, str(exc), "error")
    except OSError as exc:
        return ToolResult(False, f"{name}: {exc.strerror or exc}", "error")
    finally:
        _LINKS_OK.reset(token)
