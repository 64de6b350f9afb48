"""`zirv ctx mcp doctor [--repo PATH] [--session ID]`: check a real connection.

Launches the bridge (`zirv ctx mcp serve`) as a subprocess over stdio with the
official MCP SDK's client — the way a harness's MCP host does — lists its
tools, calls `session_snapshot`, and prints one JSON report. Exit 0 when every
step passed; otherwise 1, with the failing step and its reason in the report
and on stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

TIMEOUT_SECS = 30.0
EXPECTED = ("session_snapshot", "mail_send", "mail_inbox", "nudge", "delegation_list",
            "delegation_result")  # fmt: skip


def bridge_argv(repo: Path | None, session: str | None) -> list[str]:
    argv = ["-m", "zirv_dash.cli.main", "ctx", "mcp", "serve", "--stdio"]
    if repo is not None:
        argv += ["--repo", str(repo)]
    if session:
        argv += ["--session", session]
    return argv


async def _check(repo: Path | None, session: str | None, report: dict[str, Any]) -> None:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=bridge_argv(repo, session),
        env=dict(os.environ),
        cwd=str(Path.cwd()),
    )
    report["step"] = "connect"
    with open(os.devnull, "w") as quiet:
        async with stdio_client(params, errlog=quiet) as (read, write):
            async with ClientSession(read, write) as client:
                await client.initialize()
                report["step"] = "list_tools"
                listed = await client.list_tools()
                names = sorted(t.name for t in listed.tools)
                report["tools"] = names
                missing = [n for n in EXPECTED if n not in names]
                if missing:
                    raise RuntimeError(f"the bridge lacks tool(s) {', '.join(missing)}")
                report["step"] = "session_snapshot"
                result = await client.call_tool("session_snapshot", {})
                if result.is_error:
                    raise RuntimeError(f"session_snapshot failed: {result.content}")
                data = result.structured_content or {}
                report["repository"] = data.get("repository")
                report["sessions"] = len(data.get("data", {}).get("sessions", []))


def _serve_refusal(repo: Path | None, session: str | None) -> str | None:
    """What the bridge itself says when it refuses to start (a bad --repo or
    --session), read from its stderr: the SDK only sees the pipe close."""
    from zirv_dash.cli import mcp_bridge

    try:
        mcp_bridge.open_bridge(repo, session or os.environ.get("ZIRV_CTX_SESSION"))
    except mcp_bridge.BridgeError as exc:
        return str(exc)
    return None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="zirv ctx mcp doctor")
    parser.add_argument("--repo", type=Path, help="the repository (default: launch directory)")
    parser.add_argument("--session", help="bind the bridge to this registered session")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    report: dict[str, Any] = {"ok": False, "command": [sys.executable, *bridge_argv(
        args.repo, args.session)]}  # fmt: skip
    refusal = _serve_refusal(args.repo, args.session)
    if refusal is not None:
        report.update(step="start", reason=f"the bridge refuses to start: {refusal}")
    else:
        try:
            asyncio.run(asyncio.wait_for(_check(args.repo, args.session, report), TIMEOUT_SECS))
            report["ok"] = True
            report.pop("step", None)
        except TimeoutError:
            report["reason"] = f"no answer within {TIMEOUT_SECS:g}s at step {report['step']}"
        except Exception as exc:  # noqa: BLE001 - every failure is the report, never a traceback
            report["reason"] = _reason(exc)
    print(json.dumps(report, indent=2))
    if not report["ok"]:
        print(f"zirv ctx mcp doctor: {report.get('step')}: {report['reason']}", file=sys.stderr)
        return 1
    return 0


def _reason(exc: BaseException) -> str:
    """The innermost cause of a failure (the SDK wraps them in exception groups)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}"[:500]
