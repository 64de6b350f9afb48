"""native.toml: the upstream schema, read strictly; credentials never shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from zirv_dash import paths
from zirv_dash.native import routes
from zirv_dash.native.routes import RouteError, load_config

GOOD = """
schema = 1
[endpoint.local]
provider = "openai-compatible"
vendor = "ollama"

[endpoint.claude]
provider = "anthropic"
vendor = "anthropic"

[account.none]
provider = "openai-compatible"

[account.work]
provider = "anthropic"
credential = "env:ZIRV_TEST_ANTHROPIC_KEY"
billing = "api"

[route.fast]
account = "none"
endpoint = "local"
model = "qwen3"

[route.deep]
account = "work"
endpoint = "claude"
model = "claude-sonnet-5"

[roles]
orchestrator = "deep"
"""


def write(text: str) -> Path:
    path = paths.operator_dir() / "native.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_no_file_gives_the_offline_demo_route() -> None:
    config = load_config()
    route = config.route_for("orchestrator")
    assert route.name == "demo" and route.provider == "demo"


def test_profiles_fill_documented_urls_and_roles_pick_the_route() -> None:
    write(GOOD)
    config = load_config()
    assert config.routes["fast"].url == "http://127.0.0.1:11434/v1/chat/completions"
    deep = config.route_for("orchestrator")
    assert deep.url == "https://api.anthropic.com/v1/messages"
    assert deep.context_window == 200_000 and deep.billing == "api"


@pytest.mark.parametrize(
    ("vendor", "url"),
    [
        ("lmstudio", "http://127.0.0.1:1234/v1/chat/completions"),
        ("vllm", "http://127.0.0.1:8000/v1/chat/completions"),
        ("llamacpp", "http://127.0.0.1:8080/v1/chat/completions"),
    ],
)
def test_local_profiles(vendor: str, url: str) -> None:
    write(GOOD.replace('vendor = "ollama"', f'vendor = "{vendor}"'))
    assert load_config().routes["fast"].url == url


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (("schema = 1", "schema = 2"), "schema: must be 1"),
        (('model = "qwen3"', "model = 3"), "[route.fast] model: must be a non-empty string"),
        (('vendor = "ollama"', 'vendor = "nope"'), "[endpoint.local] vendor: no route profile"),
        (('endpoint = "local"', 'endpoint = "gone"'), "[route.fast] endpoint: no [endpoint.gone]"),
        (('orchestrator = "deep"', 'orchestrator = "x"'), "[roles] orchestrator: must name"),
        (('billing = "api"', 'billing = "subscription"'), "[account.work] billing"),
        (
            ('billing = "api"', 'billing = "api"\ncolour = 1'),
            "[account.work]: unknown key 'colour'",
        ),
        (
            ('credential = "env:ZIRV_TEST_ANTHROPIC_KEY"', 'credential = "ZIRV"'),
            '[account.work] credential: must be "env:NAME" or "file:PATH"',
        ),
        (
            (
                '[account.none]\nprovider = "openai-compatible"',
                '[account.none]\nprovider = "openai-compatible"\ncredential = "env:X"',
            ),
            "[account.none] credential: ollama takes no key",
        ),
        (
            ('vendor = "ollama"', 'vendor = "ollama"\nbase_url = "http://example.com"'),
            "a hostname is never assumed local",
        ),
    ],
)
def test_bad_fields_are_named(edit: tuple[str, str], words: str) -> None:
    path = write(GOOD.replace(*edit))
    with pytest.raises(RouteError) as err:
        load_config()
    assert str(path) in str(err.value) and words in str(err.value)


def test_malformed_toml_names_the_file() -> None:
    path = write("schema = = 1")
    with pytest.raises(RouteError, match="malformed TOML") as err:
        load_config()
    assert str(path) in str(err.value)


def test_credentials_resolve_late_and_never_show(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    write(GOOD)
    route = load_config().routes["deep"]
    with pytest.raises(routes.CredentialError, match="ZIRV_TEST_ANTHROPIC_KEY is not set"):
        route.secret()
    monkeypatch.setenv("ZIRV_TEST_ANTHROPIC_KEY", "sk-ant-very-secret")
    secret = route.secret()
    assert secret is not None and secret.reveal() == "sk-ant-very-secret"
    assert "very-secret" not in repr(secret) + str(secret) + repr(route) + str(load_config())
    keyfile = tmp_path / "key"
    keyfile.write_text("sk-file-secret\n")
    write(GOOD.replace("env:ZIRV_TEST_ANTHROPIC_KEY", f"file:{keyfile}"))
    filed = load_config().routes["deep"].secret()
    assert filed is not None and filed.reveal() == "sk-file-secret"


def test_extensions_are_a_typed_allow_list() -> None:
    from zirv_dash.native.openai_compat import request_body
    from zirv_dash.native.protocol import ChatRequest

    write(GOOD + "\n[route.fast.extensions]\ntemperature = 0.2\nseed = 7\n")
    fast = load_config().routes["fast"]
    body = request_body(fast, ChatRequest("", ()))
    assert body["temperature"] == 0.2 and body["seed"] == 7 and body["stream"] is True
    for extra, words in [
        ("messages = 1", "unknown key 'messages' for openai-compatible (accepted: "),
        ("temperature = 9", "extensions.temperature: must be between 0 and 2"),
        ("seed = 1.5", "extensions.seed: must be int"),
        ('top_p = "high"', "extensions.top_p: must be float"),
    ]:
        write(GOOD + f"\n[route.fast.extensions]\n{extra}\n")
        with pytest.raises(RouteError, match=words.replace("(", r"\(")):
            load_config()
