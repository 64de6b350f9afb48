"""The published contract, generated from the protocol's own types.

`document()` is a JSON Schema document (msgspec writes the frame, params and
result schemas from the very structs the server decodes with, enums with their
real values) plus the method table; `text()` renders the same document for a
human. Neither is written by hand, so neither can drift from the wire.
"""

from __future__ import annotations

import enum
from typing import Any

import msgspec

from zirv_dash.session.methods import CAPABILITIES, METHODS
from zirv_dash.session.protocol import (
    MAX_FRAME_BYTES,
    PROTOCOL_VERSION,
    ErrorCode,
    Event,
    EventKind,
    HelloFrame,
    Output,
    Request,
    Response,
    SeatMode,
    SessionState,
)

REF = "#/$defs/{name}"
ENUMS: dict[str, type[enum.Enum]] = {
    "ErrorCode": ErrorCode,
    "EventKind": EventKind,
    "SeatMode": SeatMode,
    "SessionState": SessionState,
}
FRAMES: dict[str, type[msgspec.Struct]] = {
    "hello": HelloFrame,
    "request": Request,
    "response": Response,
    "event": Event,
    "output": Output,
}


def document() -> dict[str, Any]:
    method_types: list[Any] = []
    for spec in METHODS.values():
        method_types += [spec.params, spec.result]
    types = list(FRAMES.values()) + method_types
    schemas, components = msgspec.json.schema_components(types, ref_template=REF)
    frames = dict(zip(FRAMES, schemas[: len(FRAMES)], strict=True))
    methods: dict[str, Any] = {}
    for index, (method, spec) in enumerate(METHODS.items()):
        params, result = schemas[len(FRAMES) + 2 * index : len(FRAMES) + 2 * index + 2]
        methods[method.value] = {
            "summary": spec.summary,
            "capability": spec.capability,
            "mutation": spec.mutation,
            "params": params,
            "result": result,
        }
    for name, enum_type in ENUMS.items():
        if name in components:
            # msgspec sorts enum values; the published order is the declared one,
            # which ends in the `unknown` fallback.
            components[name]["enum"] = [member.value for member in enum_type]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "zirv runtime protocol",
        "protocol": PROTOCOL_VERSION,
        "transport": {
            "endpoint": "<state dir>/s/api.sock",
            "framing": "ndjson",
            "max_frame_bytes": MAX_FRAME_BYTES,
        },
        "capabilities": list(CAPABILITIES),
        "frames": frames,
        "methods": methods,
        "$defs": components,
    }


def _type(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    if "anyOf" in schema:
        return " | ".join(_type(s) for s in schema["anyOf"])
    if "enum" in schema:
        return " | ".join(repr(v) for v in schema["enum"])
    kind = schema.get("type")
    if kind == "array":
        if "prefixItems" in schema:
            return "[" + ", ".join(_type(s) for s in schema["prefixItems"]) + "]"
        return f"list[{_type(schema.get('items', {}))}]"
    if kind == "object" and "additionalProperties" in schema:
        return "object"
    if kind == "string" and schema.get("contentEncoding") == "base64":
        return "base64"
    if kind == "null":
        return "null"
    return str(kind) if kind else "any"


def _fields(defs: dict[str, Any], name: str) -> list[str]:
    schema = defs.get(name, {})
    required = set(schema.get("required", []))
    lines = []
    for field, prop in schema.get("properties", {}).items():
        shown = msgspec.json.encode(prop.get("default")).decode()
        default = "" if field in required else f" = {shown}"
        lines.append(f"    {field}: {_type(prop)}{default}")
    return lines


def text() -> str:
    doc = document()
    defs: dict[str, Any] = doc["$defs"]
    out = [
        f"zirv runtime protocol v{doc['protocol']}",
        "",
        f"Transport: NDJSON over the unix socket {doc['transport']['endpoint']} (0700 dir,",
        "0600 socket, peer uid checked); one JSON object per line, at most "
        f"{MAX_FRAME_BYTES} bytes.",
        "The server writes `hello` first. Responses echo the request id and carry the",
        "server revision; it grows by exactly one per event (a gap: refresh",
        "session.snapshot). Mutations take an idempotency_key. Unknown fields are",
        "ignored; every enum ends in 'unknown'.",
        f"Capabilities: {', '.join(doc['capabilities'])}",
        "",
        "Frames:",
    ]
    for kind, schema in doc["frames"].items():
        out.append(f"  {kind} ({_type(schema)})")
        out += _fields(defs, _type(schema))
    out += ["", "Methods:"]
    for name, method in doc["methods"].items():
        flags = ", mutation" if method["mutation"] else ""
        params, result = _type(method["params"]), _type(method["result"])
        out.append(f"  {name} [{method['capability']}{flags}] -- {method['summary']}")
        out.append(f"    params {params}" + (" (none)" if not _fields(defs, params) else ""))
        out += ["  " + line for line in _fields(defs, params)]
        out.append(f"    result {result}")
    out += ["", "Types:"]
    for name, schema in defs.items():
        if "enum" in schema:
            out.append(f"  {name}: {_type(schema)}")
        elif "properties" in schema:
            out.append(f"  {name}")
            out += _fields(defs, name)
    return "\n".join(out) + "\n"
