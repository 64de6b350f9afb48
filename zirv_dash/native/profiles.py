"""What each supported vendor route is documented to be, and the request
options each provider lets a route set."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Profile:
    """One vendor route's documented facts."""

    provider: str
    vendor: str
    base_url: str
    path: str
    credential: str  # "required" | "optional" | "none"
    context_window: int


PROFILES: dict[tuple[str, str], Profile] = {
    ("openai-compatible", "openai"): Profile(
        "openai-compatible",
        "openai",
        "https://api.openai.com",
        "/v1/chat/completions",
        "required",
        128_000,
    ),
    ("openai-compatible", "deepseek"): Profile(
        "openai-compatible",
        "deepseek",
        "https://api.deepseek.com",
        "/chat/completions",
        "required",
        128_000,
    ),
    ("openai-compatible", "ollama"): Profile(
        "openai-compatible",
        "ollama",
        "http://127.0.0.1:11434",
        "/v1/chat/completions",
        "none",
        32_768,
    ),
    ("openai-compatible", "lmstudio"): Profile(
        "openai-compatible",
        "lmstudio",
        "http://127.0.0.1:1234",
        "/v1/chat/completions",
        "none",
        32_768,
    ),
    ("openai-compatible", "vllm"): Profile(
        "openai-compatible",
        "vllm",
        "http://127.0.0.1:8000",
        "/v1/chat/completions",
        "optional",
        32_768,
    ),
    ("openai-compatible", "llamacpp"): Profile(
        "openai-compatible",
        "llamacpp",
        "http://127.0.0.1:8080",
        "/v1/chat/completions",
        "optional",
        32_768,
    ),
    ("anthropic", "anthropic"): Profile(
        "anthropic",
        "anthropic",
        "https://api.anthropic.com",
        "/v1/messages",
        "required",
        200_000,
    ),
}
PROVIDERS = ("openai-compatible", "anthropic")
BILLING = ("api", "subscription")


# Provider-native request options a route may set: (type, low, high). Nothing
# else passes through, and none of these can overwrite a protocol-owned field.
EXTENSIONS: dict[str, dict[str, tuple[type, float, float]]] = {
    "openai-compatible": {
        "temperature": (float, 0.0, 2.0),
        "top_p": (float, 0.0, 1.0),
        "presence_penalty": (float, -2.0, 2.0),
        "frequency_penalty": (float, -2.0, 2.0),
        "seed": (int, 0, 2**63 - 1),
    },
    "anthropic": {
        "temperature": (float, 0.0, 1.0),
        "top_p": (float, 0.0, 1.0),
        "top_k": (int, 1, 2**31 - 1),
    },
}
