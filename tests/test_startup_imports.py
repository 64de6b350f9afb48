"""What the small commands import: agents run `zirv ctx send` many times a minute,
so it must start fast. Each check runs the real command in a fresh interpreter
and names the modules it must not have loaded (no timing: a module that comes
back is the regression, whatever the machine's speed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zirv_dash import record_fields, records
from zirv_dash.mail import format as mail_format
from zirv_dash.mail import headers as mail_headers

UI = ("textual", "rich", "screens", "widgets")
"""Whole packages: no module of them at all."""
HEAVY = (
    "pydantic",
    "pydantic_settings",
    "msgspec",
    "dataclasses",  # imports inspect, ast, dis, tokenize
    "inspect",
    "tempfile",  # imports shutil and random
    "shutil",  # bz2, lzma, zlib
    "subprocess",
    "uuid",
)
MAILBOX_ONLY_FORBIDS = (
    "zirv_dash.panes.registry",  # msgspec records and /proc probes: only for a session target
    "zirv_dash.records",
    "zirv_dash.record_fields",
    "zirv_dash.mail.headers",  # only to word a refused header
    "zirv_dash.config.model",
    "zirv_dash.config.gate",
    "zirv_dash.cli.ctx",  # other verbs' modules
    "zirv_dash.cli.ctx_kill",
    "zirv_dash.mail.nudge",
    "zirv_dash.panes.escapes",
)

_PROBE = """\
import sys
start = sorted(sys.modules)  # the interpreter's own (site, .pth files): not the verb's
import contextlib, io
from zirv_dash.cli import main as cli
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = cli.main({argv!r})
modules = sorted(sys.modules)  # before the probe's own json
import json
print(json.dumps({{"code": code, "out": out.getvalue(), "modules": modules, "start": start}}))
"""
SEND_ALSO_FORBIDS = ("json", "tomllib", "logging")
"""Storing a note reads no JSON or TOML and logs nothing (only a failure does)."""
HOT_PATH_FORBIDS = (
    "argparse",  # a plain command line is read by `flags.read_plain`; argparse for the rest
    "gettext",  # argparse's, and locale with its first translated string
    "locale",
    "typing",  # with contextlib: only type checkers read our annotations
    "threading",  # the mail cache's lock is `_thread`'s
    "secrets",  # hmac, hashlib, random: the turn-signal nonce is os.urandom
    "importlib",  # the verb table is loaded with __import__
    "zirv_dash.cli.ctx_args",
)
"""What neither `ctx send` nor `ctx hook stop` loads: agents run both every turn."""


def run_zirv(
    argv: list[str], cwd: Path, state: Path, extra: dict[str, str] | None = None
) -> tuple[int, str, set[str]]:
    """Exit code, stdout and every module loaded by `zirv <argv>` in a fresh interpreter."""
    env = {
        **os.environ,
        "ZIRV_CTX_STATE_DIR": str(state),
        "ZIRV_HOME": str(cwd / "home" / ".zirv"),
        "HOME": str(cwd / "home"),
    }
    for name in ("ZIRV_CTX_SESSION", "ZIRV_CTX_AGENT", "ZIRV_CTX_SOCKET"):
        env.pop(name, None)
    env.update(extra or {})
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(argv=argv)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    return report["code"], report["out"], set(report["modules"]) - set(report["start"])


def offending(modules: set[str], forbidden: tuple[str, ...]) -> list[str]:
    return sorted(
        m
        for m in modules
        if m.split(".")[0] in UI or any(m == f or m.startswith(f + ".") for f in forbidden)
    )


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


def test_ctx_send_to_the_mailbox_imports_only_what_storing_a_note_needs(
    repo: Path, tmp_path: Path
) -> None:
    code, out, modules = run_zirv(["ctx", "send", "--message", "hi"], repo, tmp_path / "s")
    assert code == 0 and "zirv ctx send: stored" in out
    forbidden = HEAVY + MAILBOX_ONLY_FORBIDS + SEND_ALSO_FORBIDS + HOT_PATH_FORBIDS
    assert offending(modules, forbidden) == []
    assert "zirv_dash.cli.ctx_mail" in modules  # the probe really ran the verb


def test_ctx_send_to_everyone_reads_its_plain_line_without_argparse(
    repo: Path, tmp_path: Path
) -> None:
    argv = ["ctx", "send", "--all", "-m", "to all"]
    code, out, modules = run_zirv(argv, repo, tmp_path / "s")
    assert code == 0 and "for every session (--all)" in out
    assert offending(modules, HOT_PATH_FORBIDS) == []


def test_ctx_send_hands_an_unusual_line_to_argparse(repo: Path, tmp_path: Path) -> None:
    # An abbreviation is argparse's to accept (or refuse): it parses this one.
    code, out, modules = run_zirv(["ctx", "send", "--mess", "hi"], repo, tmp_path / "s")
    assert code == 0 and "zirv ctx send: stored" in out
    assert "argparse" in modules and "zirv_dash.cli.ctx_args" in modules


def test_ctx_inbox_reads_mail_without_the_record_decoder(repo: Path, tmp_path: Path) -> None:
    state = tmp_path / "s"
    assert run_zirv(["ctx", "send", "--message", "hello"], repo, state)[0] == 0
    code, out, modules = run_zirv(["ctx", "inbox", "--peek"], repo, state)
    assert code == 0 and "hello" in out  # a message was parsed, headers and all
    assert offending(modules, HEAVY + MAILBOX_ONLY_FORBIDS) == []


def test_the_cli_imports_only_the_verb_it_runs(repo: Path, tmp_path: Path) -> None:
    code, out, modules = run_zirv(["version"], repo, tmp_path / "s")
    assert code == 0 and out.startswith("zirv ")
    assert sorted(m for m in modules if m.startswith("zirv_dash.")) == [
        "zirv_dash.cli",
        "zirv_dash.cli.main",
    ]
    assert offending(modules, HEAVY + HOT_PATH_FORBIDS + ("pathlib",)) == []
    code, _, modules = run_zirv(["ctx", "kill", "abcd1234"], repo, tmp_path / "s")
    assert code == 0 and "zirv_dash.cli.ctx_kill" in modules  # no such session: gone
    mail_verbs = ("zirv_dash.cli.ctx", "zirv_dash.cli.ctx_mail", "zirv_dash.mail.mailbox")
    assert offending(modules, mail_verbs) == []


def test_the_turn_hook_imports_neither_mail_nor_the_registry(repo: Path, tmp_path: Path) -> None:
    # A harness runs it at the end of every turn; the pane is gone here, which
    # the hook reports by exiting 0 silently.
    gone = {"ZIRV_CTX_SOCKET": str(tmp_path / "gone.sock")}
    code, out, modules = run_zirv(["ctx", "hook", "stop"], repo, tmp_path / "s", gone)
    assert code == 0 and out == "" and "zirv_dash.attention.turn_signal" in modules
    forbidden = HEAVY + MAILBOX_ONLY_FORBIDS + HOT_PATH_FORBIDS + ("zirv_dash.mail.mailbox",)
    assert offending(modules, forbidden + ("pathlib", "zirv_dash.paths")) == []


def test_ctx_status_stays_clear_of_the_ui_and_pydantic(repo: Path, tmp_path: Path) -> None:
    code, out, modules = run_zirv(["ctx", "status"], repo, tmp_path / "s")
    assert code == 0 and "mail: 0 unread" in out
    assert offending(modules, ("pydantic", "pydantic_settings")) == []


# The fast path of the header check must accept exactly what the record does.

_TEXT = st.text(max_size=8) | st.sampled_from(["\udc80", "a\ud800b", "é", ""])
_SENT = (
    st.integers()
    | st.sampled_from([record_fields.INT64_MAX, -record_fields.INT64_MAX, 2**63, -(2**63)])
    | _TEXT
)
_HEADERS = st.fixed_dictionaries(
    {},
    optional={
        "from_session": _TEXT,
        "from_agent": _TEXT,
        "to": _TEXT,
        "to_session": _TEXT,
        "sent": _SENT,
    },
)


@given(_HEADERS)
def test_plain_headers_agree_with_the_mail_header_record(values: dict[str, str | int]) -> None:
    plain = mail_format._plain_headers(values)
    try:
        record = mail_headers.validate(values, Path("/m/1.md"))
    except records.RecordError:
        assert plain is None  # a refusal is always worded by the record
        return
    if plain is not None:
        fields = (record.from_session, record.from_agent, record.to, record.to_session)
        assert plain == (*fields, record.sent)


def test_a_refused_sent_header_reads_as_the_record_words_it(tmp_path: Path) -> None:
    path = tmp_path / "1700000000-x.md"
    for sent, words in (("soon", "is not a number"), (str(2**63), "<= 9223372036854775807")):
        with pytest.raises(mail_format.MailError) as caught:
            mail_format.parse_message(f"## Message\n- Sent: {sent}\n\nbody\n", path)
        assert str(caught.value).startswith(f"{path}: field 'sent' ")
        assert words in str(caught.value)


def test_the_dashboard_and_its_settings_load_without_pydantic(repo: Path, tmp_path: Path) -> None:
    # The first frame of `zirv chat` waits for every module the dashboard
    # imports; plainly valid settings (here: none at all) need no model.
    probe = (
        "import sys, json\nimport screens.app, screens.dashboard, zirv_dash.cli.chat\n"
        "from zirv_dash.config import layers as config\nconfig.load_settings()\n"
        "print(json.dumps(sorted(m for m in sys.modules "
        "if m.startswith('pydantic') or m == 'zirv_dash.config.model')))"
    )
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("ZIRV_CTX_")}
    env.update(HOME=str(tmp_path / "home"), ZIRV_HOME=str(tmp_path / "home" / ".zirv"))
    env["ZIRV_CTX_STATE_DIR"] = str(tmp_path / "s")
    root = Path(__file__).resolve().parent.parent
    env["PYTHONPATH"] = str(root)
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=repo, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []
