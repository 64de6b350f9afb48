"""zirv's MCP bridge registered for one launch of a claude or codex pane.

Launch-only: the bridge reaches the harness through its own command line, never
through the user's settings files. It is bound to the pane's session (`--session`)
and fixed to the dashboard's repository (`--repo`), so the tools a pane sees are
its own. `[mcp] auto_register = false` (operator-only) turns it off.

- claude: `--mcp-config=<file>` with a generated `{"mcpServers": {"zirv": …}}`
  under `<state>/mcp/` (Claude Code 2.1.197: "--mcp-config <configs...> Load MCP
  servers from JSON files or strings"). The `=` form, because the option is
  variadic: a separate value would let it swallow the prompt after it.
- codex: `-c mcp_servers.zirv.command=…` and `-c mcp_servers.zirv.args=[…]`
  (codex 0.171.0: "-c key=value … Use a dotted path (`foo.bar.baz`) to override
  nested values. The value portion is parsed as TOML"); JSON strings and arrays
  of strings are TOML too.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from zirv_dash import paths

HARNESSES = ("claude", "codex")


def bridge_command(repo: Path, session_id: str) -> tuple[str, list[str]]:
    return sys.executable, [
        "-m", "zirv_dash.cli.main", "ctx", "mcp", "serve", "--stdio",
        "--repo", str(repo), "--session", session_id,
    ]  # fmt: skip


def config_path(session_id: str) -> Path:
    return paths.state_dir() / "mcp" / f"{paths.short_id(session_id)}.json"


def launch_args(agent: str, session_id: str, repo: Path) -> list[str]:
    """The extra argv that registers the bridge for this launch ([] for another
    harness). OSError if claude's config file cannot be written."""
    if agent not in HARNESSES:
        return []
    command, args = bridge_command(repo, session_id)
    if agent == "claude":
        path = config_path(session_id)
        doc = {"mcpServers": {"zirv": {"type": "stdio", "command": command, "args": args}}}
        paths.atomic_write(path, json.dumps(doc, indent=2) + "\n")
        return [f"--mcp-config={path}"]
    return [
        "-c", f"mcp_servers.zirv.command={json.dumps(command)}",
        "-c", f"mcp_servers.zirv.args={json.dumps(args)}",
    ]  # fmt: skip
