"""One bounded streaming POST: the part both HTTP providers share.

Every way a server can misbehave ends in a typed `ProviderError` within a
bounded time: no connection (`connect`), silence (`idle`, per read), a stream
that never ends (`total`, checked per chunk), a body that never stops growing
(`max_bytes`), an event that never ends (`max_line`). Error messages name the
URL and the status, never a header (the credential lives in one).
"""

from __future__ import annotations

import ipaddress
import json
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx2

from zirv_dash.native.protocol import ProviderError, error_for_status
from zirv_dash.native.routes import CredentialError, Route, Secret
from zirv_dash.native.sse import SSEEvent, read_events


@dataclass(frozen=True)
class Limits:
    connect: float = 10.0
    idle: float = 90.0
    total: float = 900.0
    max_bytes: int = 16 * 1024 * 1024
    max_line: int = 1024 * 1024
    max_error_body: int = 64 * 1024


def route_secret(route: Route) -> Secret | None:
    """The route's credential, or an `auth` error naming the reference (never a value)."""
    try:
        return route.secret()
    except CredentialError as exc:
        raise ProviderError("auth", str(exc)) from exc


def _local(url: str) -> bool:
    try:
        return ipaddress.ip_address(urlsplit(url).hostname or "").is_loopback
    except ValueError:
        return False


async def post_events(
    url: str, headers: Mapping[str, str], body: Mapping[str, Any], limits: Limits
) -> AsyncIterator[SSEEvent]:
    timeout = httpx2.Timeout(limits.idle, connect=limits.connect)
    deadline = time.monotonic() + limits.total
    # A proxy from the environment must never see a loopback route's traffic.
    async with httpx2.AsyncClient(timeout=timeout, trust_env=not _local(url)) as client:
        try:
            async with client.stream("POST", url, headers=dict(headers), json=body) as resp:
                if resp.status_code != 200:
                    detail = await _error_detail(resp, limits)
                    raise error_for_status(resp.status_code, detail)
                ctype = resp.headers.get("content-type", "")
                if "text/event-stream" not in ctype:
                    detail = await _error_detail(resp, limits)
                    raise ProviderError(
                        "bad_response",
                        f"expected an event stream, got {ctype or 'no type'}"
                        + (f": {detail}" if detail else ""),
                    )
                chunks = _deadline_chunks(resp, deadline, limits.total)
                async for event in read_events(
                    chunks, max_bytes=limits.max_bytes, max_line=limits.max_line
                ):
                    yield event
        except httpx2.ConnectTimeout as exc:
            message = f"{url}: no connection within {limits.connect}s"
            raise ProviderError("network", message) from exc
        except httpx2.ConnectError as exc:
            raise ProviderError("network", f"{url}: cannot connect") from exc
        except httpx2.TimeoutException as exc:
            raise ProviderError("network", f"{url}: no data for {limits.idle}s") from exc
        except httpx2.RemoteProtocolError as exc:
            if "peer closed" in str(exc):  # h11: the body ended before its declared end
                message = f"{url}: the connection dropped before the response finished"
                raise ProviderError("network", message, dropped=True) from exc
            raise ProviderError("bad_response", f"{url}: the server broke the protocol") from exc
        except httpx2.ReadError as exc:  # reset or closed under a read
            message = f"{url}: the connection dropped ({type(exc).__name__})"
            raise ProviderError("network", message, dropped=True) from exc
        except httpx2.TransportError as exc:
            raise ProviderError("network", f"{url}: {type(exc).__name__}") from exc


async def _deadline_chunks(
    resp: httpx2.Response, deadline: float, total: float
) -> AsyncIterator[bytes]:
    async for chunk in resp.aiter_bytes():
        if time.monotonic() > deadline:
            raise ProviderError("network", f"the response did not finish within {total}s")
        yield chunk


async def _error_detail(resp: httpx2.Response, limits: Limits) -> str:
    """The provider's own error message from a bounded read of the body."""
    data = b""
    try:
        async for chunk in resp.aiter_bytes():
            data += chunk
            if len(data) > limits.max_error_body:
                break
    except httpx2.HTTPError:
        pass
    text = data[: limits.max_error_body].decode("utf-8", "replace").strip()
    try:
        parsed = json.loads(text)
    except ValueError:
        return text[:300]
    return error_message(parsed) or text[:300]


def error_message(parsed: object) -> str:
    """`error.message` (both OpenAI and Anthropic shapes), else ''."""
    if isinstance(parsed, dict):
        err = parsed.get("error", parsed)
        if isinstance(err, dict) and isinstance(err.get("message"), str):
            return str(err["message"])[:300]
        if isinstance(err, str):
            return err[:300]
    return ""


def parse_json(data: str) -> dict[str, Any]:
    try:
        value = json.loads(data)
    except ValueError as exc:
        raise ProviderError("bad_response", f"an event is not JSON: {data[:80]!r}") from exc
    if not isinstance(value, dict):
        raise ProviderError("bad_response", "an event is not a JSON object")
    return value
