"""Whether a harness clearly has no credentials, read from its own files and environment.

A handover to a CLI that is not logged in would start it only to see its login
screen; this says so before it starts. Each check follows where the installed
package itself looks (named at each check) and answers with what is missing, or
"" when the credentials are there *or zirv cannot tell*: a keychain, a `.env` file
the CLI would load, a settings file choosing another way in. Unknown is never
"not logged in".

copilot, opencode and pi are never judged: copilot also takes `gh`'s token and
the system keychain, opencode and pi take a key for any of dozens of providers
(and opencode has providers that need none), so an absent file proves nothing.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

Env = Mapping[str, str]


class _CannotTell(Exception):
    """A file that could hold credentials is there but unreadable or not understood."""


def missing(agent: str, env: Env | None = None, cwd: str | None = None) -> str:
    """What `agent` clearly lacks to be logged in (for "not logged in: …"), or ""."""
    check = _CHECKS.get(agent)
    if check is None:
        return ""
    env = os.environ if env is None else env
    home = Path(env.get("HOME") or Path.home())
    try:
        return check(env, home, Path(cwd or os.getcwd()))
    except (_CannotTell, OSError, ValueError):
        return ""


def _set(env: Env, *names: str) -> bool:
    return any(env.get(name) for name in names)


def _tilde(path: Path, home: Path) -> str:
    try:
        return "~/" + str(path.relative_to(home))
    except ValueError:
        return str(path)


def _json(path: Path) -> Any:
    """The file's JSON, or None when it is absent; anything else cannot be told."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    try:
        return json.loads(text)
    except ValueError as exc:
        raise _CannotTell(str(path)) from exc


def _dotenv_near(cwd: Path, home: Path, sub: str) -> bool:
    """A `.env` the gemini-family CLIs load could set a key: `loadEnvironment` →
    `findEnvFile` walks up from the working directory trying `<sub>/.env`, then
    `.env`, and falls back to the same two in the home directory."""
    for folder in (cwd, *cwd.parents, home):
        if (folder / sub / ".env").exists() or (folder / ".env").exists():
            return True
    return False


def _keyring_reachable(env: Env) -> bool:
    """A Secret Service keychain may be there: a D-Bus session bus is reachable."""
    runtime = env.get("XDG_RUNTIME_DIR") or f"/run/user/{os.getuid()}"
    return bool(env.get("DBUS_SESSION_BUS_ADDRESS")) or (Path(runtime) / "bus").exists()


def _claude(env: Env, home: Path, cwd: Path) -> str:
    # @anthropic-ai/claude-code 2.1.197 (bin/claude.exe, its bundled JS): `Ty()`
    # takes ANTHROPIC_API_KEY, an `apiKeyHelper` from settings, or `primaryApiKey`
    # of the global config; `qs()` CLAUDE_CODE_OAUTH_TOKEN, else `claudeAiOauth`
    # of `.credentials.json` in `m7()` = CLAUDE_SECURESTORAGE_CONFIG_DIR or `Zn()`
    # = CLAUDE_CONFIG_DIR or ~/.claude. The global config is `.claude.json` in
    # CLAUDE_CONFIG_DIR or the home directory. On macOS it is the keychain.
    if sys.platform == "darwin":
        return ""
    if _set(
        env,
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN_FILE_DESCRIPTOR",
        "ANTHROPIC_FEDERATION_RULE_ID",
        "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX",
        "CLAUDE_CODE_USE_FOUNDRY",
    ):
        return ""
    config_dir = Path(env.get("CLAUDE_CONFIG_DIR") or home / ".claude")
    secure_dir = Path(env.get("CLAUDE_SECURESTORAGE_CONFIG_DIR") or config_dir)
    credentials = secure_dir / ".credentials.json"
    if credentials.exists():
        return ""
    global_config = _json(Path(env.get("CLAUDE_CONFIG_DIR") or home) / ".claude.json")
    if isinstance(global_config, dict) and global_config.get("primaryApiKey"):
        return ""
    # Settings may run an `apiKeyHelper` or set a key in their `env`; managed
    # (policy) settings may do either: zirv cannot tell then.
    settings = _json(config_dir / "settings.json")
    if isinstance(settings, dict) and ("apiKeyHelper" in settings or "env" in settings):
        return ""
    if Path("/etc/claude-code/managed-settings.json").exists():
        return ""
    return f"no {_tilde(credentials, home)} or ANTHROPIC_API_KEY"


def _codex(env: Env, home: Path, cwd: Path) -> str:
    # @openai/codex 0.171.0 (the codex binary): auth from OPENAI_API_KEY,
    # CODEX_API_KEY, CODEX_ACCESS_TOKEN or federation variables, else `auth.json`
    # in CODEX_HOME (default ~/.codex) with `cli_auth_credentials_store = "file"`,
    # its default; `config.toml` may choose the keyring or a provider of its own.
    if _set(
        env,
        "OPENAI_API_KEY",
        "CODEX_API_KEY",
        "CODEX_ACCESS_TOKEN",
        "OPENAI_FEDERATION_RULE_ID",
        "OPENAI_IDENTITY_TOKEN_FILE",
    ):
        return ""
    codex_home = Path(env.get("CODEX_HOME") or home / ".codex")
    auth = codex_home / "auth.json"
    if auth.exists():
        return ""
    import tomllib  # only when codex's own files must be read

    try:
        config = tomllib.loads((codex_home / "config.toml").read_text(encoding="utf-8"))
    except FileNotFoundError:
        config = {}
    except tomllib.TOMLDecodeError as exc:
        raise _CannotTell("config.toml") from exc
    if config.get("cli_auth_credentials_store", "file") != "file":
        return ""
    if config.get("model_provider", "openai") != "openai" or "model_providers" in config:
        return ""
    return f"no {_tilde(auth, home)} or OPENAI_API_KEY"


def _gemini(env: Env, home: Path, cwd: Path) -> str:
    # @google/gemini-cli 0.61.0 (bundle/): `getAuthTypeFromEnv` and
    # `validateAuthMethod` read these variables; `homedir()` is GEMINI_CLI_HOME or
    # the home directory, `Storage.getOAuthCredsPath` its `.gemini/oauth_creds.json`,
    # and `FileKeychain` keeps `.gemini/gemini-credentials.json`. A login records
    # `security.auth.selectedType` in `.gemini/settings.json` (its key may then be
    # in the keychain, which zirv does not read).
    if _set(
        env,
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GOOGLE_GENAI_USE_GCA",
        "GOOGLE_GENAI_USE_VERTEXAI",
        "GOOGLE_GEMINI_BASE_URL",
        "GOOGLE_CLOUD_PROJECT",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "GEMINI_CLI_USE_COMPUTE_ADC",
        "CLOUD_SHELL",
    ):
        return ""
    gemini_home = Path(env.get("GEMINI_CLI_HOME") or home)
    folder = gemini_home / ".gemini"
    oauth = folder / "oauth_creds.json"
    if oauth.exists() or (folder / "gemini-credentials.json").exists():
        return ""
    settings = _json(folder / "settings.json")
    if isinstance(settings, dict) and (
        settings.get("selectedAuthType") or (settings.get("security") or {}).get("auth")
    ):
        return ""
    # /etc/gemini-cli holds its system settings (`getSystemSettingsPath`).
    if _dotenv_near(cwd, gemini_home, ".gemini") or Path("/etc/gemini-cli").exists():
        return ""
    return f"no {_tilde(oauth, home)} or GEMINI_API_KEY"


def _qwen(env: Env, home: Path, cwd: Path) -> str:
    # @qwen-code/qwen-code 0.15.10 (cli.js): `getAuthTypeFromEnv` (these variable
    # sets), else `security.auth.selectedType` of the settings; `getGlobalQwenDir`
    # is QWEN_HOME or ~/.qwen; `loadEnvironment` loads `.qwen/.env` / `.env` files.
    if env.get("QWEN_OAUTH") or any(
        all(env.get(name) for name in group)
        for group in (
            ("OPENAI_API_KEY", "OPENAI_MODEL", "OPENAI_BASE_URL"),
            ("GEMINI_API_KEY", "GEMINI_MODEL"),
            ("GOOGLE_API_KEY", "GOOGLE_MODEL"),
            ("ANTHROPIC_API_KEY", "ANTHROPIC_MODEL", "ANTHROPIC_BASE_URL"),
        )
    ):
        return ""
    folder = Path(env.get("QWEN_HOME") or home / ".qwen")
    settings_file = folder / "settings.json"
    system = Path("/etc/qwen-code/settings.json")  # its `getSystemSettingsPath`
    for path in (settings_file, cwd / ".qwen" / "settings.json", system):
        if path.exists():
            return ""  # it may choose a way in (zirv does not judge its providers)
    if (folder / "oauth_creds.json").exists() or _dotenv_near(cwd, home, ".qwen"):
        return ""
    return f"no auth in {_tilde(settings_file, home)} or OPENAI_API_KEY/MODEL/BASE_URL"


def _grok(env: Env, home: Path, cwd: Path) -> str:
    # @vibe-kit/grok-cli (dist/utils/settings-manager.js `getApiKey`): GROK_API_KEY,
    # else `apiKey` of ~/.grok/user-settings.json; dist/index.js runs
    # `dotenv.config()`, so a `.env` in the working directory may set it.
    if _set(env, "GROK_API_KEY"):
        return ""
    settings_file = home / ".grok" / "user-settings.json"
    settings = _json(settings_file)
    if isinstance(settings, dict) and settings.get("apiKey"):
        return ""
    if (cwd / ".env").exists():
        return ""
    return f"no GROK_API_KEY or apiKey in {_tilde(settings_file, home)}"


def _droid(env: Env, home: Path, cwd: Path) -> str:
    # @factory/cli 0.225.2 (bin/droid, its bundled JS): `runtimeAuth.apiKey` is
    # FACTORY_API_KEY; the login is kept in `.factory/` under FACTORY_HOME_OVERRIDE
    # or the home directory as auth.v2.file / auth.v2.key / auth.encrypted /
    # auth.json, or in the system keyring unless FACTORY_DISABLE_KEYRING.
    if _set(env, "FACTORY_API_KEY"):
        return ""
    folder = Path(env.get("FACTORY_HOME_OVERRIDE") or home) / ".factory"
    names = ("auth.v2.file", "auth.v2.key", "auth.v2.keyring", "auth.encrypted", "auth.json")
    if any((folder / name).exists() for name in names):
        return ""
    disabled = env.get("FACTORY_DISABLE_KEYRING", "").lower() in ("1", "true")
    if not disabled and _keyring_reachable(env):
        return ""
    return f"no login in {_tilde(folder, home)} or FACTORY_API_KEY"


_CHECKS: dict[str, Callable[[Env, Path, Path], str]] = {
    "claude": _claude,
    "codex": _codex,
    "gemini": _gemini,
    "qwen": _qwen,
    "grok": _grok,
    "droid": _droid,
}
"""The harnesses zirv can judge; any other is never said to be not logged in."""
