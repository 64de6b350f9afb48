"""Provider routes from the operator's `~/.zirv/native.toml`.

Upstream's schema, read strictly: `schema = 1`, `[endpoint.NAME]` (provider,
base_url, vendor), `[account.NAME]` (provider, credential, billing),
`[route.NAME]` (account, endpoint, model) and `[roles] orchestrator = ROUTE`.
Every route binds to a *profile* (documented base URL, request path, credential
class: `profiles`); a vendor with no profile is refused rather than sent to a
guessed URL.
The file is operator-only: a checkout can never name the endpoint or the key a
session spends. With no file at all the built-in offline `demo` route is used.

Credentials are references (`env:NAME`, `file:PATH`) until a request is built;
the resolved secret lives in a `Secret`, whose repr/str never show it.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from zirv_dash import paths, safeio
from zirv_dash.native.profiles import BILLING, EXTENSIONS, PROFILES, PROVIDERS, Profile

SCHEMA = 1
CONFIG_CAP = 256 * 1024
CREDENTIAL_FILE_CAP = 16 * 1024
DEMO_ROUTE = "demo"


class RouteError(ValueError):
    """native.toml cannot be used; the message names the file and the field."""


class CredentialError(RouteError):
    """A credential reference did not resolve (the secret itself is never named)."""


class Secret:
    """A resolved credential. Nothing but `reveal()` ever shows the value."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret(***)"

    __str__ = __repr__


@dataclass(frozen=True)
class Route:
    """A resolved route: everything a provider client needs except the secret."""

    name: str
    provider: str  # "openai-compatible" | "anthropic" | "demo"
    vendor: str
    base_url: str
    path: str
    model: str
    account: str
    billing: str
    credential_ref: str | None = field(default=None, repr=False)
    credential_class: str = "none"
    context_window: int = 0
    max_tokens: int = 4096
    extensions: tuple[tuple[str, float], ...] = ()

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + self.path

    @property
    def label(self) -> str:
        return f"{self.vendor}/{self.model}"

    def secret(self) -> Secret | None:
        """The credential, resolved now (never cached on the route)."""
        return resolve_credential(self.credential_ref, f"[account.{self.account}]")


@dataclass(frozen=True)
class NativeConfig:
    routes: Mapping[str, Route]
    roles: Mapping[str, str]
    source: str

    def route_for(self, role: str = "orchestrator") -> Route:
        name = self.roles.get(role)
        if name is None:
            if len(self.routes) == 1:
                return next(iter(self.routes.values()))
            raise RouteError(f"{self.source}: [roles] {role}: no route is named for this role")
        return self.routes[name]


def demo_route() -> Route:
    return Route(
        name=DEMO_ROUTE,
        provider="demo",
        vendor="zirv",
        base_url="offline://demo",
        path="",
        model="demo",
        account="demo",
        billing="–",
        context_window=32_000,
    )


def config_path() -> Path:
    return paths.operator_dir() / "native.toml"


def load_config(path: Path | None = None) -> NativeConfig:
    """The operator's routes, or the demo route when the file does not exist."""
    source = path or config_path()
    try:
        data = safeio.read_toml(source, CONFIG_CAP)
    except (OSError, ValueError) as exc:
        raise RouteError(str(exc)) from exc
    if data is None:
        route = demo_route()
        return NativeConfig({route.name: route}, {"orchestrator": route.name}, "built-in demo")
    return parse_config(data, str(source))


_TOP_KEYS = {"schema", "endpoint", "account", "route", "roles"}
_ENDPOINT_KEYS = {"provider", "base_url", "vendor"}
_ACCOUNT_KEYS = {"provider", "credential", "billing"}
_ROUTE_KEYS = {"account", "endpoint", "model", "context_window", "max_tokens", "extensions"}


def parse_config(data: Mapping[str, Any], source: str) -> NativeConfig:
    _no_unknown(data, _TOP_KEYS, source, "top level")
    if data.get("schema") != SCHEMA:
        raise RouteError(f"{source}: schema: must be {SCHEMA} (found {data.get('schema')!r})")
    endpoints = _tables(data, "endpoint", source)
    accounts = _tables(data, "account", source)
    routes: dict[str, Route] = {}
    for name, table in _tables(data, "route", source).items():
        routes[name] = _route(name, table, endpoints, accounts, source)
    if not routes:
        raise RouteError(f"{source}: route: at least one [route.NAME] is needed")
    roles_raw = data.get("roles", {})
    if not isinstance(roles_raw, dict):
        raise RouteError(f"{source}: roles: must be a table")
    roles: dict[str, str] = {}
    for role, target in roles_raw.items():
        where = f"{source}: [roles] {role}"
        if not isinstance(target, str) or target not in routes:
            raise RouteError(f"{where}: must name a [route.NAME] (known: {', '.join(routes)})")
        roles[role] = target
    return NativeConfig(routes, roles, source)


def _route(
    name: str,
    table: Mapping[str, Any],
    endpoints: Mapping[str, Mapping[str, Any]],
    accounts: Mapping[str, Mapping[str, Any]],
    source: str,
) -> Route:
    where = f"{source}: [route.{name}]"
    _no_unknown(table, _ROUTE_KEYS, source, f"[route.{name}]")
    ep_name = _text(table, "endpoint", where)
    acct_name = _text(table, "account", where)
    model = _text(table, "model", where)
    if ep_name not in endpoints:
        raise RouteError(f"{where} endpoint: no [endpoint.{ep_name}] is defined")
    if acct_name not in accounts:
        raise RouteError(f"{where} account: no [account.{acct_name}] is defined")
    profile, base_url = _endpoint(ep_name, endpoints[ep_name], source)
    ref, billing = _account(acct_name, accounts[acct_name], profile, source)
    _check_transport(base_url, ref, f"{source}: [endpoint.{ep_name}] base_url")
    return Route(
        name=name,
        provider=profile.provider,
        vendor=profile.vendor,
        base_url=base_url,
        path=profile.path,
        model=model,
        account=acct_name,
        billing=billing,
        credential_ref=ref,
        credential_class=profile.credential,
        context_window=_positive(table, "context_window", where, profile.context_window),
        max_tokens=_positive(table, "max_tokens", where, 4096),
        extensions=_extensions(table.get("extensions", {}), profile.provider, where),
    )


def _endpoint(name: str, table: Mapping[str, Any], source: str) -> tuple[Profile, str]:
    where = f"{source}: [endpoint.{name}]"
    _no_unknown(table, _ENDPOINT_KEYS, source, f"[endpoint.{name}]")
    provider = _provider(table, where)
    vendor = table.get("vendor", "anthropic" if provider == "anthropic" else None)
    if not isinstance(vendor, str) or not vendor:
        raise RouteError(f"{where} vendor: must be a non-empty string")
    profile = PROFILES.get((provider, vendor))
    if profile is None:
        known = ", ".join(v for p, v in PROFILES if p == provider)
        raise RouteError(
            f"{where} vendor: no route profile for {vendor!r} on {provider} (known: {known})"
        )
    base = table.get("base_url", profile.base_url)
    if not isinstance(base, str) or urlsplit(base).scheme not in ("http", "https"):
        raise RouteError(f"{where} base_url: must be an http:// or https:// URL")
    if not urlsplit(base).hostname:
        raise RouteError(f"{where} base_url: has no host")
    return profile, base


def _account(
    name: str, table: Mapping[str, Any], profile: Profile, source: str
) -> tuple[str | None, str]:
    where = f"{source}: [account.{name}]"
    _no_unknown(table, _ACCOUNT_KEYS, source, f"[account.{name}]")
    provider = _provider(table, where)
    if provider != profile.provider:
        raise RouteError(f"{where} provider: {provider} does not match the endpoint's")
    billing = table.get("billing", "api")
    if billing not in BILLING:
        raise RouteError(f"{where} billing: must be one of {', '.join(BILLING)}")
    if billing == "subscription":
        raise RouteError(
            f"{where} billing: a subscription is not an API entitlement; "
            'direct provider routes need billing = "api"'
        )
    ref = table.get("credential")
    if ref is not None and (not isinstance(ref, str) or not ref.startswith(("env:", "file:"))):
        raise RouteError(f'{where} credential: must be "env:NAME" or "file:PATH"')
    if ref is not None and len(ref.split(":", 1)[1]) == 0:
        raise RouteError(f"{where} credential: names nothing after the colon")
    if profile.credential == "required" and ref is None:
        raise RouteError(f"{where} credential: {profile.vendor} routes need one")
    if profile.credential == "none" and ref is not None:
        raise RouteError(
            f"{where} credential: {profile.vendor} takes no key; declaring one is refused "
            "rather than sent to a local server"
        )
    return ref, str(billing)


def _extensions(raw: object, provider: str, where: str) -> tuple[tuple[str, float], ...]:
    allowed = EXTENSIONS[provider]
    if not isinstance(raw, dict):
        raise RouteError(f"{where} extensions: must be a table")
    out: list[tuple[str, float]] = []
    for key, value in sorted(raw.items()):
        accepted = ", ".join(sorted(allowed))
        if key not in allowed:
            raise RouteError(
                f"{where} extensions: unknown key {key!r} for {provider} (accepted: {accepted})"
            )
        kind, low, high = allowed[key]
        is_number = isinstance(value, int | float) and not isinstance(value, bool)
        if not is_number or (kind is int and not isinstance(value, int)):
            raise RouteError(f"{where} extensions.{key}: must be {kind.__name__}")
        if not low <= value <= high:
            raise RouteError(f"{where} extensions.{key}: must be between {low:g} and {high:g}")
        out.append((key, value))
    return tuple(out)


def _check_transport(base_url: str, ref: str | None, where: str) -> None:
    """Plain http only to a literal loopback/private address; never a key in the clear
    to anything but loopback."""
    parts = urlsplit(base_url)
    if parts.scheme == "https":
        return
    try:
        addr = ipaddress.ip_address(parts.hostname or "")
    except ValueError:
        raise RouteError(
            f"{where}: plain http:// needs a literal loopback or private address "
            "(a hostname is never assumed local)"
        ) from None
    if not (addr.is_loopback or addr.is_private):
        raise RouteError(f"{where}: plain http:// is only for loopback or private addresses")
    if ref is not None and not addr.is_loopback:
        raise RouteError(f"{where}: a credential is never sent in the clear to a non-loopback host")


def resolve_credential(ref: str | None, where: str) -> Secret | None:
    if ref is None:
        return None
    kind, _, target = ref.partition(":")
    if kind == "env":
        value = os.environ.get(target, "").strip()
        if not value:
            raise CredentialError(f"{where} credential: environment variable {target} is not set")
        return Secret(value)
    path = Path(target).expanduser()
    try:
        data = safeio.read_bounded(path, CREDENTIAL_FILE_CAP, follow_symlinks=True)
    except OSError as exc:
        raise CredentialError(f"{where} credential: {exc}") from exc
    if data is None:
        raise CredentialError(f"{where} credential: file {path} does not exist")
    value = data.decode("utf-8", "replace").strip()
    if not value:
        raise CredentialError(f"{where} credential: file {path} is empty")
    return Secret(value)


def _tables(data: Mapping[str, Any], key: str, source: str) -> dict[str, Mapping[str, Any]]:
    raw = data.get(key, {})
    if not isinstance(raw, dict):
        raise RouteError(f"{source}: {key}: must be a table of [{key}.NAME] tables")
    for name, table in raw.items():
        if not isinstance(table, dict):
            raise RouteError(f"{source}: [{key}.{name}]: must be a table")
    return raw


def _no_unknown(table: Mapping[str, Any], allowed: set[str], source: str, where: str) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        accepted = ", ".join(sorted(allowed))
        raise RouteError(f"{source}: {where}: unknown key {unknown[0]!r} (accepted: {accepted})")


def _text(table: Mapping[str, Any], key: str, where: str) -> str:
    value = table.get(key)
    if not isinstance(value, str) or not value.strip():
        raise RouteError(f"{where} {key}: must be a non-empty string")
    return value


def _provider(table: Mapping[str, Any], where: str) -> str:
    value = table.get("provider")
    if value not in PROVIDERS:
        raise RouteError(f"{where} provider: must be one of {', '.join(PROVIDERS)}")
    return str(value)


def _positive(table: Mapping[str, Any], key: str, where: str, default: int) -> int:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise RouteError(f"{where} {key}: must be a positive integer")
    return value
