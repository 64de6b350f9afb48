"""Whether a harness is clearly not logged in, read from fake HOMEs and environments."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zirv_dash.harnesses import credentials


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    (tmp_path / "work").mkdir()
    return tmp_path / "home"


def env_of(home: Path, **extra: str) -> dict[str, str]:
    """A bare environment: the fake HOME, no session bus (no keychain to ask)."""
    runtime = home.parent / "run"
    runtime.mkdir(exist_ok=True)
    return {"HOME": str(home), "XDG_RUNTIME_DIR": str(runtime), **extra}


def missing(agent: str, home: Path, **extra: str) -> str:
    return credentials.missing(agent, env_of(home, **extra), str(home.parent / "work"))


def put(path: Path, text: str = "{}") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


# (harness, its credential file under HOME, an environment variable that does instead)
CASES = [
    ("claude", ".claude/.credentials.json", "ANTHROPIC_API_KEY"),
    ("codex", ".codex/auth.json", "OPENAI_API_KEY"),
    ("gemini", ".gemini/oauth_creds.json", "GEMINI_API_KEY"),
    ("grok", ".grok/user-settings.json", "GROK_API_KEY"),
    ("droid", ".factory/auth.v2.file", "FACTORY_API_KEY"),
    ("qwen", ".qwen/settings.json", "QWEN_OAUTH"),
]


@pytest.mark.parametrize(("agent", "file", "var"), CASES)
def test_a_bare_home_is_not_logged_in_and_names_what_is_missing(
    home: Path, agent: str, file: str, var: str
) -> None:
    said = missing(agent, home)
    assert said, f"{agent} in a bare HOME should be said to be not logged in"
    # The words name the file (as ~/…) and a variable the harness takes.
    assert f"~/{Path(file).parent}" in said or f"~/{file}" in said, said
    if agent != "qwen":
        assert var in said


@pytest.mark.parametrize(("agent", "file", "var"), CASES)
def test_the_credential_file_counts(home: Path, agent: str, file: str, var: str) -> None:
    text = '{"apiKey": "xai-123"}' if agent == "grok" else "{}"
    put(home / file, text)
    assert missing(agent, home) == ""


@pytest.mark.parametrize(("agent", "file", "var"), CASES)
def test_the_environment_variable_counts(home: Path, agent: str, file: str, var: str) -> None:
    assert missing(agent, home, **{var: "1"}) == ""
    assert missing(agent, home, **{var: ""}) != ""  # an empty value is no key


def test_claude_config_dirs_and_primary_key(home: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "claude-config"
    put(elsewhere / ".credentials.json")
    assert missing("claude", home, CLAUDE_CONFIG_DIR=str(elsewhere)) == ""
    # ~/.claude.json as the tests seed it (onboarding done, no key) is no login...
    put(home / ".claude.json", json.dumps({"hasCompletedOnboarding": True}))
    assert "no ~/.claude/.credentials.json" in missing("claude", home)
    # ...a /login-managed key in it is.
    put(home / ".claude.json", json.dumps({"primaryApiKey": "sk-ant-api-x"}))
    assert missing("claude", home) == ""


def test_claude_cannot_tell_with_an_api_key_helper_or_a_broken_config(home: Path) -> None:
    put(home / ".claude" / "settings.json", json.dumps({"apiKeyHelper": "~/bin/key"}))
    assert missing("claude", home) == ""
    put(home / ".claude" / "settings.json", "{}")
    assert missing("claude", home) != ""
    put(home / ".claude.json", "{not json")
    assert missing("claude", home) == ""


def test_codex_home_and_its_keyring_store(home: Path, tmp_path: Path) -> None:
    codex_home = tmp_path / "codex-home"
    put(codex_home / "auth.json")
    assert missing("codex", home, CODEX_HOME=str(codex_home)) == ""
    assert "auth.json" in missing("codex", home, CODEX_HOME=str(tmp_path / "empty"))
    put(home / ".codex" / "config.toml", 'cli_auth_credentials_store = "keyring"\n')
    assert missing("codex", home) == ""
    put(home / ".codex" / "config.toml", 'model_provider = "ollama"\n')
    assert missing("codex", home) == ""
    put(home / ".codex" / "config.toml", 'model = "gpt-5"\n')
    assert missing("codex", home) != ""


def test_gemini_cli_home_settings_and_dotenv(home: Path, tmp_path: Path) -> None:
    gemini_home = tmp_path / "gemini-home"
    put(gemini_home / ".gemini" / "oauth_creds.json")
    assert missing("gemini", home, GEMINI_CLI_HOME=str(gemini_home)) == ""
    put(home / ".gemini" / "settings.json", json.dumps({"ui": {"theme": "x"}}))
    assert missing("gemini", home) != ""
    put(
        home / ".gemini" / "settings.json",
        json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}),
    )
    assert missing("gemini", home) == ""  # its key may be in the keychain
    (home / ".gemini" / "settings.json").unlink()
    put(tmp_path / "work" / ".env", "GEMINI_API_KEY=x\n")  # a .env it would load
    assert missing("gemini", home) == ""


def test_grok_settings_without_a_key_and_a_dotenv(home: Path, tmp_path: Path) -> None:
    put(home / ".grok" / "user-settings.json", json.dumps({"baseURL": "https://api.x.ai/v1"}))
    assert "apiKey in ~/.grok/user-settings.json" in missing("grok", home)
    put(tmp_path / "work" / ".env", "GROK_API_KEY=x\n")
    assert missing("grok", home) == ""


def test_qwen_needs_its_whole_variable_set(home: Path) -> None:
    assert missing("qwen", home, OPENAI_API_KEY="k") != ""
    assert missing("qwen", home, OPENAI_API_KEY="k", OPENAI_MODEL="m", OPENAI_BASE_URL="u") == ""


def test_droid_cannot_tell_when_a_keyring_is_reachable(home: Path) -> None:
    assert missing("droid", home, DBUS_SESSION_BUS_ADDRESS="unix:path=/x") == ""
    with_bus = missing(
        "droid", home, DBUS_SESSION_BUS_ADDRESS="unix:path=/x", FACTORY_DISABLE_KEYRING="true"
    )
    assert "FACTORY_API_KEY" in with_bus


@pytest.mark.parametrize("agent", ["copilot", "opencode", "pi", "shell", "demo", "nonesuch"])
def test_harnesses_zirv_cannot_judge_are_never_not_logged_in(home: Path, agent: str) -> None:
    assert missing(agent, home) == ""
