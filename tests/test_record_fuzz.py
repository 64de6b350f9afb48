"""Fuzz targets for every decoder of an external record or configuration file.

Each decoder gets arbitrary input and may do exactly two things: return a value
whose strings can all be handed to `exec` (strict UTF-8, no NUL), or raise its
own documented error. Anything else (a KeyError, a RecursionError, a
UnicodeEncodeError later in a fork) is a bug.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zirv_dash import paths, records, safeio
from zirv_dash.config.layers import ConfigError, load_settings
from zirv_dash.dash import roster
from zirv_dash.keymap import KeymapError, load_keymap
from zirv_dash.mail import mailbox as mail
from zirv_dash.mail import nudge
from zirv_dash.panes import registry
from zirv_dash.textcheck import UnencodableText, text_problem

FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# Text that includes lone surrogates, NULs and controls, as JSON can carry them.
any_text = st.text(st.characters(codec=None, categories=None), max_size=40)
json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | any_text
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(any_text, inner, max_size=4),
    max_leaves=20,
)
record_keys = st.sampled_from(
    ["session", "short", "agent", "repo", "repo_slug", "verb", "pid", "started_at",
     "reachable", "owner_pid", "role", "start_time", "runtime"]
)  # fmt: skip
roster_keys = st.sampled_from(roster.RosterPane.__struct_fields__)


def _all_strings_encodable(value: object) -> None:
    if isinstance(value, str):
        assert text_problem(value) is None, repr(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            _all_strings_encodable(key)
            _all_strings_encodable(item)
    elif isinstance(value, list | tuple):
        for item in value:
            _all_strings_encodable(item)


# --- registry record ------------------------------------------------------------------


@FUZZ
@given(st.dictionaries(record_keys | any_text, json_values, max_size=8) | json_values)
def test_registry_record_decoder(data: Any) -> None:
    try:
        record = registry.SessionRecord.from_json(data)
    except registry.RecordError:
        return
    _all_strings_encodable(record.to_json())


@FUZZ
@given(st.binary(max_size=300) | json_values.map(lambda v: json.dumps(v).encode()))
def test_registry_record_file(data: bytes) -> None:
    path = registry.sessions_dir() / "abcd1234.json"
    path.write_bytes(data)
    try:
        record = registry.read_record(path)
    except registry.RecordError as exc:
        assert str(path) in str(exc)
        return
    _all_strings_encodable(record.to_json())


# --- roster entry ---------------------------------------------------------------------


@FUZZ
@given(st.dictionaries(roster_keys | any_text, json_values, max_size=8) | json_values)
def test_roster_entry_decoder(data: Any) -> None:
    try:
        pane = roster.RosterPane.from_json(data)
    except (UnencodableText, records.RecordError) as exc:
        assert "roster entry" in str(exc)
        return
    _all_strings_encodable(pane.to_json())


@FUZZ
@given(st.binary(max_size=300) | json_values.map(lambda v: json.dumps(v).encode()))
def test_roster_file(data: bytes) -> None:
    state = paths.state_dir()
    path = roster.roster_path(state, "-fuzz")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    for pane in roster.take_roster(state, "-fuzz", max_age_secs=10**12, problems=[]):
        _all_strings_encodable(pane.to_json())


# --- mail headers -----------------------------------------------------------------------


header_lines = st.lists(
    st.tuples(
        st.sampled_from(["From-session", "From-agent", "To", "To-session", "Sent", "X"]),
        any_text,
    ).map(lambda kv: f"- {kv[0]}: {kv[1]}"),
    max_size=6,
)


@FUZZ
@given(header_lines, any_text)
def test_mail_header_decoder(lines: list[str], body: str) -> None:
    text = "## Message\n" + "\n".join(lines) + "\n\n" + body
    raw = text.encode("utf-8", "surrogatepass")
    path = mail.mailbox_dir("-fuzz") / "1700000000-fuzz.md"
    path.write_bytes(raw)
    try:
        message = mail.read_message(path)
    except mail.MailError:
        return
    for value in (message.from_session, message.from_agent, message.to, message.to_session):
        if value is not None:
            assert text_problem(value) is None and "\n" not in value


@FUZZ
@given(st.binary(max_size=400))
def test_mail_file(data: bytes) -> None:
    path = mail.mailbox_dir("-fuzz") / "1700000001-fuzz.md"
    path.write_bytes(data)
    try:
        message = mail.read_message(path)
    except mail.MailError as exc:
        assert str(path) in str(exc)
        return
    assert text_problem(message.from_session) is None


@FUZZ
@given(any_text, any_text, any_text)
def test_mail_store_refuses_or_round_trips(sender: str, agent: str, body: str) -> None:
    try:
        stored = mail.store("-fuzz-store", body, from_session=sender, from_agent=agent, keep=10**6)
    except mail.MailError:
        return
    again = mail.read_message(stored.path)
    assert again.from_agent == stored.from_agent


# --- nudge marker -----------------------------------------------------------------------


@FUZZ
@given(st.binary(max_size=600))
def test_nudge_marker_decoder(data: bytes) -> None:
    sender = nudge._parse_sender(data)
    assert sender == nudge.UNKNOWN_SENDER or (
        sender.isascii() and 0 < len(sender) <= 64 and "\n" not in sender
    )


@FUZZ
@given(st.binary(max_size=600))
def test_nudge_marker_file(data: bytes) -> None:
    nudge.marker_path("fuzz1234").write_bytes(data)
    sender = nudge.claim_marker("fuzz1234")
    assert sender is not None and text_problem(sender) is None


# --- configuration ----------------------------------------------------------------------


toml_fragments = st.lists(
    st.sampled_from(
        ["[dash]", "[[dash]]", "dash = 1", "[mail]", "keep = 5", "max_panes = 3", "[handover]",
         "claude = 1", "[handover.claude]", 'cheap = "m"', "[worker]", 'x = "\\u0000"',
         'enabled = false', "idle_quiet_ms = 500", "a.b.c = 1", "x = [[[1]]]", "= =", '"\\ud800"',
         "agent = 'codex'", "[supervise]", "poll_ms = 'x'", "truecolor = true"]
    ),
    max_size=8,
).map("\n".join)  # fmt: skip


@FUZZ
@given(toml_fragments | st.binary(max_size=200).map(lambda b: b.decode("latin-1")))
def test_config_decoder(text: str) -> None:
    root = paths.state_dir() / "fuzz-repo"
    (root / ".zirv").mkdir(parents=True, exist_ok=True)
    target = root / ".zirv" / "ctx.toml"
    target.write_bytes(text.encode("utf-8", "surrogatepass"))
    try:
        settings_ = load_settings(root)
    except ConfigError:
        return
    _all_strings_encodable(settings_.model_dump())


@FUZZ
@given(toml_fragments | st.binary(max_size=200).map(lambda b: b.decode("latin-1")))
def test_keymap_decoder(text: str) -> None:
    target = paths.state_dir() / "keymap.toml"
    target.write_bytes(text.encode("utf-8", "surrogatepass"))
    try:
        keymap = load_keymap(user_file=target)
    except KeymapError:
        return
    _all_strings_encodable(keymap.bindings)


@FUZZ
@given(st.binary(max_size=300))
def test_toml_and_json_parsers_only_raise_bad_content(data: bytes) -> None:
    for parse in (safeio.parse_toml, safeio.parse_json):
        try:
            parse(data.decode("utf-8", "replace"), Path("fuzz"))
        except safeio.BadContent:
            pass
