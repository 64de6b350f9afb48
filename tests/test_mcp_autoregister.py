"""claude and codex panes the dashboard launches get zirv's MCP bridge for that
launch only (claude `--mcp-config=<file>`, codex `-c mcp_servers.zirv.*`), bound
to the pane's session; `[mcp] auto_register = false` is the operator's to set."""

from __future__ import annotations

import json
import os
import time
import tomllib
from pathlib import Path

import pytest

from tests.intakehelpers import close
from zirv_dash.config.layers import ConfigError, load_settings
from zirv_dash.dash.dashboard import Dashboard

FAKE = """#!/bin/sh
for a in "$@"; do printf '%s\\n' "$a"; done > "$ARGV_OUT.$(basename "$0")"
sleep 30
"""


@pytest.fixture
def bindir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Stand-ins for claude and codex that record their argv (one line each)."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for name in ("claude", "codex"):
        path = bindir / name
        path.write_text(FAKE)
        path.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("ARGV_OUT", str(tmp_path / "argv"))
    return bindir


def launched(tmp_path: Path, repo: Path, agent: str, flags: dict[str, object] | None = None
             ) -> tuple[list[str], str, dict[str, tuple[str, int]]]:  # fmt: skip
    """The launched argv, the pane's session, and the files its flags named (read
    while the pane ran)."""
    settings = load_settings(repo, flags=flags) if flags else load_settings(repo)
    dash = Dashboard(settings, repo, manage_state=True)
    try:
        pane = dash.spawn(agent, prompt="hello there")
        out = tmp_path / f"argv.{agent}"
        for _ in range(500):
            if out.exists() and out.read_text().endswith("\n"):
                break
            time.sleep(0.02)
        argv = out.read_text().splitlines()
        named = [a.split("=", 1)[1] for a in argv if a.startswith("--mcp-config=")]
        files = {p: (Path(p).read_text(), Path(p).stat().st_mode & 0o777) for p in named}
        return argv, pane.session_id, files
    finally:
        close(dash)


def test_claude_gets_a_generated_mcp_config(tmp_path: Path, bindir: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    argv, session, files = launched(tmp_path, repo, "claude")
    [flag] = [a for a in argv if a.startswith("--mcp-config")]
    assert flag.startswith("--mcp-config=")  # the variadic option never takes the prompt
    assert "hello there" in argv
    path = Path(flag.split("=", 1)[1])
    text, mode = files[str(path)]
    doc = json.loads(text)
    assert mode == 0o600
    server = doc["mcpServers"]["zirv"]
    assert server["args"][-4:] == ["--repo", str(repo.resolve()), "--session", session]
    assert "serve" in server["args"] and path.parent.name == "mcp"
    assert not path.exists()  # removed with the pane's record when it ended


def test_codex_gets_config_overrides_that_parse_as_toml(tmp_path: Path, bindir: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    argv, session, _ = launched(tmp_path, repo, "codex")
    values = [argv[i + 1] for i, a in enumerate(argv) if a == "-c"]
    parsed = {}
    for value in values:
        key, _, raw = value.partition("=")
        parsed[key] = tomllib.loads(f"v = {raw}")["v"]
    assert parsed["mcp_servers.zirv.args"][-2:] == ["--session", session]
    assert Path(parsed["mcp_servers.zirv.command"]).name.startswith("python")


def test_auto_register_off_is_the_operators_alone(tmp_path: Path, bindir: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    argv, _, _ = launched(tmp_path, repo, "claude", flags={"mcp": {"auto_register": False}})
    assert not any(a.startswith("--mcp-config") for a in argv)
    (repo / ".zirv").mkdir()
    (repo / ".zirv" / "ctx.toml").write_text("[mcp]\nauto_register = false\n")
    with pytest.raises(ConfigError, match="mcp.auto_register"):
        load_settings(repo)


def test_a_handover_successor_gets_the_bridge_bound_to_the_panes_session(
    tmp_path: Path, bindir: Path
) -> None:
    """codex handed over to claude: the successor's own launch registers the bridge
    (the plan's argv is built afresh and never carried it)."""
    from zirv_dash.handover import swap
    from zirv_dash.runtime.swaps import start_successor

    repo = tmp_path / "repo"
    repo.mkdir()
    dash = Dashboard(load_settings(repo), repo, manage_state=True)
    successor = None
    try:
        pane = dash.spawn("codex", prompt="hello there")
        plan = swap.prepare(swap.capture(pane), "claude", None, dash.gate)
        assert not any(a.startswith("--mcp-config") for a in plan.argv)
        successor = start_successor(dash, pane, plan)
        out = tmp_path / "argv.claude"
        for _ in range(500):
            if out.exists() and out.read_text().endswith("\n"):
                break
            time.sleep(0.02)
        argv = out.read_text().splitlines()
        [flag] = [a for a in argv if a.startswith("--mcp-config=")]
        doc = json.loads(Path(flag.split("=", 1)[1]).read_text())
        args = doc["mcpServers"]["zirv"]["args"]
        assert args[-4:] == ["--repo", str(repo.resolve()), "--session", pane.session_id]
        assert flag in successor.plan.argv  # installed with it: the record and a restore see it
    finally:
        if successor is not None:
            successor.pty.force_stop()
        close(dash)
