"""Every file reader of configuration and on-disk state, fed hostile files.

Each reader (config layers, adapter gate, keymap, mail, registry, roster, nudge
markers) meets the same corpus: a symlink to /dev/zero, a FIFO nobody writes, a
unix socket, a 300 MB sparse file, 5,000-deep nesting, bytes that are not UTF-8,
lone surrogates escaped in JSON, and the wrong shape. The rule for all of them:
a clear error (or a reported problem) naming the file, never a hang, a
traceback, an unbounded read, or a deleted file. Grow the corpus with every case.
"""

from __future__ import annotations

import os
import socket
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from zirv_dash import paths
from zirv_dash.config.layers import ConfigError, load_adapter_gate, load_settings
from zirv_dash.dash import roster
from zirv_dash.keymap import KeymapError, load_keymap
from zirv_dash.mail import mailbox as mail
from zirv_dash.mail import nudge
from zirv_dash.panes import registry

HUGE = 300 * 1024 * 1024
SLUG = "-work-hostile"
DEEP = 5000


def _symlink_dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _fifo(path: Path) -> None:
    os.mkfifo(path)


_sockets: list[socket.socket] = []


def _socket(path: Path) -> None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    here = os.getcwd()
    os.chdir(path.parent)  # a relative name: the full path may exceed sun_path
    try:
        sock.bind(path.name)
    finally:
        os.chdir(here)
    sock.listen(1)
    _sockets.append(sock)


def _huge(path: Path) -> None:
    with open(path, "wb") as handle:
        handle.truncate(HUGE)  # sparse: costs no disk, reads as 300 MB of zeros


def _bytes(data: bytes) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        path.write_bytes(data)

    return make


@pytest.fixture(autouse=True)
def _close_sockets() -> Iterator[None]:
    yield
    while _sockets:
        _sockets.pop().close()


@pytest.fixture(autouse=True)
def _bounded_memory() -> Iterator[None]:
    """No reader may pull a hostile file into memory: peak Python allocation stays
    far below the 300 MB a whole read of the huge file would cost."""
    tracemalloc.start()
    yield
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 32 * 1024 * 1024, f"peak allocation {peak} bytes"


SPECIAL: dict[str, Callable[[Path], None]] = {
    "dev-zero-symlink": _symlink_dev_zero,
    "fifo": _fifo,
    "socket": _socket,
    "huge": _huge,
    "non-utf8": _bytes(b"[dash]\nidle_quiet_ms = 1\n# caf\xe9 \xff\xfe\n"),
}
SPECIAL_REASON = {
    "dev-zero-symlink": "not a regular file (a device)",
    "fifo": "not a regular file (a FIFO)",
    "socket": "not a regular file (a socket)",
    "huge": "too large",
    "non-utf8": "not UTF-8",
}

TOML_CASES: dict[str, tuple[Callable[[Path], None], str]] = {
    **{name: (make, SPECIAL_REASON[name]) for name, make in SPECIAL.items()},
    "deep-array": (_bytes(b"x = " + b"[" * DEEP + b"]" * DEEP + b"\n"), "nested too deeply"),
    "deep-inline-table": (
        _bytes(b"x = " + b"{a = " * DEEP + b"1" + b"}" * DEEP + b"\n"),
        "nested too deeply",
    ),
    "deep-dotted-key": (_bytes(b".".join([b"k"] * DEEP) + b" = 1\n"), "nested more than"),
    "nul-in-string": (_bytes(b'[worker]\nclaude = "a\\u0000b"\n'), "NUL"),
}


# --- configuration -------------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(TOML_CASES))
@pytest.mark.parametrize("layer", ["operator", "repo"])
def test_config_layers(tmp_path: Path, case: str, layer: str) -> None:
    make, reason = TOML_CASES[case]
    base = paths.operator_dir() if layer == "operator" else tmp_path / ".zirv"
    base.mkdir(parents=True, exist_ok=True)
    target = base / "ctx.toml"
    make(target)
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path)
    assert str(target) in str(info.value) and reason in str(info.value)


@pytest.mark.parametrize("case", sorted(TOML_CASES))
@pytest.mark.parametrize("layer", ["operator", "repo"])
def test_adapter_gate_files(tmp_path: Path, case: str, layer: str) -> None:
    make, reason = TOML_CASES[case]
    base = paths.operator_dir() if layer == "operator" else tmp_path / ".zirv"
    base.mkdir(parents=True, exist_ok=True)
    target = base / ".settings.toml"
    make(target)
    with pytest.raises(ConfigError) as info:
        load_adapter_gate(tmp_path, ["claude"])
    assert str(target) in str(info.value) and reason in str(info.value)


@pytest.mark.parametrize("case", sorted(TOML_CASES))
def test_keymap_file(tmp_path: Path, case: str) -> None:
    make, reason = TOML_CASES[case]
    target = tmp_path / "keymap.toml"
    make(target)
    with pytest.raises(KeymapError) as info:
        load_keymap(user_file=target)
    assert str(target) in str(info.value) and reason in str(info.value)


@pytest.mark.parametrize(
    "text",
    ['dash = "x"\n', "[[dash]]\n", "handover = 1\n", "[handover]\nclaude = 1\n", "mail = []\n"],
)
def test_config_wrong_shapes_in_the_repo_layer(tmp_path: Path, text: str) -> None:
    (tmp_path / ".zirv").mkdir()
    target = tmp_path / ".zirv" / "ctx.toml"
    target.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path)
    assert str(target) in str(info.value)


@pytest.mark.parametrize(
    "text", ['bindings = "x"\n', "[[bindings]]\n", "prefix = []\n", 'preset = ["default"]\n']
)
def test_keymap_wrong_shapes(tmp_path: Path, text: str) -> None:
    target = tmp_path / "keymap.toml"
    target.write_text(text)
    with pytest.raises(KeymapError) as info:
        load_keymap(user_file=target)
    assert str(target) in str(info.value) or "must" in str(info.value)


# --- mail ------------------------------------------------------------------------------

MAIL_CASES: dict[str, Callable[[Path], None]] = {
    **SPECIAL,
    "symlink-to-message": lambda p: p.symlink_to(p.with_name("0000000000-real.txt")),
}


@pytest.mark.parametrize("case", sorted(MAIL_CASES))
def test_mailbox_entries(case: str) -> None:
    good = mail.store(SLUG, "good", from_session="s", from_agent="a", now=1_700_000_000)
    box = mail.mailbox_dir(SLUG)
    (box / "0000000000-real.txt").write_text("## Message\n- From-agent: x\n\nreal\n")
    bad = box / "1699999999-zzzz9999.md"
    MAIL_CASES[case](bad)
    problems: list[str] = []
    got = mail.list_messages(SLUG, problems=problems)
    assert [m.path for m in got] == [good.path]
    assert len(problems) == 1 and str(bad) in problems[0]
    assert os.path.lexists(bad)  # never deleted
    assert mail.unread_counts(SLUG, None, None) == (1, 0)


def test_mail_header_cannot_carry_a_lone_surrogate() -> None:
    box = mail.mailbox_dir(SLUG)
    raw = "## Message\n- From-session: \\ud800\n- From-agent: \udcff\n\nbody\n"
    (box / "1700000000-abcd1234.md").write_bytes(raw.encode("utf-8", "surrogateescape"))
    (message,) = mail.list_messages(SLUG)
    for value in (message.from_session, message.from_agent, message.to):
        value.encode("utf-8")


# --- registry ---------------------------------------------------------------------------

# State files zirv writes itself are never read through a symlink at all.
STATE_REASON = {**SPECIAL_REASON, "dev-zero-symlink": "not a regular file (a symlink)"}

RECORD_CASES: dict[str, tuple[Callable[[Path], None], str]] = {
    **{name: (make, STATE_REASON[name]) for name, make in SPECIAL.items()},
    "deep": (
        _bytes(b'{"session": "x", "pid": 1, "deep": ' + b"[" * DEEP + b"]" * DEEP + b"}"),
        "nested",
    ),
    "surrogate-session": (
        _bytes(b'{"session": "\\ud800", "short": "zzzz9999", "pid": 1}'),
        "UTF-8",
    ),
    "surrogate-extra-key": (
        _bytes(b'{"session": "zzzz9999", "pid": 1, "\\udfff": 1}'),
        "not valid UTF-8",
    ),
    "wrong-shape": (_bytes(b'[{"session": "zzzz9999", "pid": 1}]'), "not a JSON object"),
    "symlink-to-record": (lambda p: p.symlink_to(p.with_name("real.txt")), "a symlink"),
}


@pytest.mark.parametrize("case", sorted(RECORD_CASES))
def test_registry_records(case: str) -> None:
    make, reason = RECORD_CASES[case]
    registry.register(
        registry.SessionRecord.new("12345678-ok", "claude", Path("/"), "dash", os.getpid())
    )
    directory = registry.sessions_dir()
    (directory / "real.txt").write_text('{"session": "zzzz9999", "pid": 1}')
    bad = directory / "zzzz9999.json"
    make(bad)
    problems: list[str] = []
    records = registry.list_sessions(problems=problems)
    assert [r.short for r in records] == ["12345678"]
    assert len(problems) == 1 and str(bad) in problems[0] and reason in problems[0]
    assert os.path.lexists(bad)


# --- roster -----------------------------------------------------------------------------

ROSTER_CASES: dict[str, Callable[[Path], None]] = {
    **SPECIAL,
    "deep": _bytes(b'{"written": 1, "panes": ' + b"[" * DEEP + b"]" * DEEP + b"}"),
    "wrong-shape": _bytes(b'{"written": 1, "panes": {"agent": "claude"}}'),
}


@pytest.mark.parametrize("case", sorted(ROSTER_CASES))
def test_roster_file(case: str) -> None:
    state = paths.state_dir()
    target = roster.roster_path(state, SLUG)
    target.parent.mkdir(parents=True, exist_ok=True)
    ROSTER_CASES[case](target)
    assert roster.take_roster(state, SLUG, max_age_secs=10**12) == []


def test_roster_entry_with_a_lone_surrogate_never_reaches_exec() -> None:
    state = paths.state_dir()
    target = roster.roster_path(state, SLUG)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b'{"written": 1, "panes": [{"agent": "shell", "session_id": "\\ud800"}]}')
    problems: list[str] = []
    assert roster.take_roster(state, SLUG, max_age_secs=10**12, problems=problems) == []
    assert "`roster entry.session_id` is not valid UTF-8 text" in problems[0]


# --- nudge markers -----------------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(SPECIAL))
def test_nudge_marker(case: str) -> None:
    marker = nudge.marker_path("abcd1234")
    SPECIAL[case](marker)
    assert nudge.claim_marker("abcd1234") == nudge.UNKNOWN_SENDER
    assert not os.path.lexists(marker)
    assert [p for p in marker.parent.iterdir() if ".claim-" in p.name] == []
