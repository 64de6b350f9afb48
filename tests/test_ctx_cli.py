"""`zirv ctx status|send|inbox|nudge|kill|hook` as real subprocesses."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import msgspec
import pytest

from zirv_dash import paths
from zirv_dash.attention.turn_signal import TurnSignalServer
from zirv_dash.panes import registry

SESSION_A = "aaaa1111-0000-4000-8000-000000000001"
SESSION_B = "bbbb2222-0000-4000-8000-000000000002"


@dataclass
class Env:
    state: Path
    repo: Path

    @property
    def slug(self) -> str:
        return paths.repo_slug(self.repo)

    def run(
        self, *args: str, env: dict[str, str] | None = None, stdin: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        full_env = {
            k: v for k, v in os.environ.items() if not k.startswith(("ZIRV_CTX_", "ZIRV_HOME"))
        }
        full_env["ZIRV_CTX_STATE_DIR"] = str(self.state)
        full_env["ZIRV_HOME"] = str(self.state / "home")
        full_env.update(env or {})
        return subprocess.run(
            [sys.executable, "-m", "zirv_dash.cli.main", "ctx", *args],
            cwd=self.repo,
            env=full_env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=30,
        )

    def as_session(self, session: str, agent: str) -> dict[str, str]:
        return {"ZIRV_CTX_SESSION": session, "ZIRV_CTX_AGENT": agent}

    def mailbox(self, slug: str | None = None) -> Path:
        return self.state / "mail" / (slug or self.slug)


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> Iterator[Env]:
    root = Path(tempfile.mkdtemp(prefix="zcli", dir="/tmp"))
    state = root / "st"
    repo = root / "repo"
    (repo / ".git").mkdir(parents=True)
    monkeypatch.setenv("ZIRV_CTX_STATE_DIR", str(state))
    yield Env(state, repo)
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield proc
    proc.kill()
    proc.wait()


def register(
    env: Env, session: str, pid: int, *, agent: str = "claude", verb: str = "dash", **kw: object
) -> registry.SessionRecord:
    record = registry.SessionRecord.new(session, agent, env.repo, verb, pid)
    record = msgspec.structs.replace(record, **kw)
    registry.register(record)
    return record


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


# --- status ------------------------------------------------------------------


def test_status_with_nothing(env: Env) -> None:
    result = env.run("status")
    assert result.returncode == 0, result.stderr
    head, fallback = result.stdout.split("fallback:", 1)
    assert head == "sessions: none\nmail: 0 unread\n"
    policy, *harnesses = fallback.splitlines()
    # Upstream's lines: the policy, then each harness of the order.
    assert policy == (
        " enabled | order claude -> codex | steer below 20% headroom | candidate min 10%"
        " | unknown assumes 25%"
    )
    assert [h.split(":")[0] for h in harnesses] == ["fallback claude", "fallback codex"]
    assert all(
        re.search(r": enabled / (ready|unavailable) / full / 25% assumed$", h) for h in harnesses
    )


def test_status_lists_sessions_and_sweeps_stale_ones(
    env: Env, sleeper: subprocess.Popen[bytes]
) -> None:
    register(env, SESSION_A, sleeper.pid, verb="exec")
    register(env, SESSION_B, dead_pid(), agent="codex", verb="wrap")
    register(env, "cccc3333-x", sleeper.pid, verb="wrap", reachable=False)
    (env.state / "sessions" / "junk0000.json").write_text("{broken")
    result = env.run("status")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "sessions:"
    slug = re.escape(env.slug)
    assert re.fullmatch(rf"  aaaa1111 claude exec pid {sleeper.pid} \d+s live {slug}", lines[1])
    assert re.fullmatch(r"  bbbb2222 codex wrap pid \d+ \d+s stale .*", lines[2])
    assert re.fullmatch(r"  cccc3333 claude wrap pid \d+ \d+s unreachable .*", lines[3])
    assert lines[-4] == "mail: 0 unread"
    assert "junk0000.json: not valid JSON" in result.stderr
    assert (env.state / "sessions" / "junk0000.json").exists()
    again = env.run("status").stdout
    assert "bbbb2222" not in again  # reported once, then swept


def test_status_json_and_mail_count(env: Env, sleeper: subprocess.Popen[bytes]) -> None:
    register(env, SESSION_A, sleeper.pid)
    assert env.run("send", "--message", "one").returncode == 0
    assert env.run("send", "--to-session", "aaaa", "--message", "two").returncode == 0
    data = json.loads(env.run("status", "--json").stdout)
    assert [s["short"] for s in data["sessions"]] == ["aaaa1111"]
    assert data["sessions"][0]["liveness"] == "live"
    assert data["mail"]["unread"] == 2
    mine = env.run("status", env=env.as_session(SESSION_A, "claude")).stdout
    assert mine.splitlines()[-4] == "mail: 2 unread (1 broadcast, 1 direct)"
    assert data["fallback"][0].startswith("fallback: enabled | order claude -> codex")
    assert data["sessions"][0]["context"] is None  # no dashboard read it: null, not a guess


def test_status_lists_a_socket_with_no_record(env: Env) -> None:
    with TurnSignalServer.bind(env.state / "s" / "0ld50ck3.sock"):
        out = env.run("status").stdout
    assert "0ld50ck3 (no record)" in out


# --- send / inbox --------------------------------------------------------------


def test_send_then_inbox_consumes(env: Env) -> None:
    sent = env.run(
        "send",
        "--message",
        "the webhook route moved to /v2/webhook",
        env=env.as_session(SESSION_A, "claude"),
    )
    assert sent.returncode == 0, sent.stderr
    assert "stored" in sent.stdout and env.slug in sent.stdout
    files = list(env.mailbox().glob("*-aaaa1111.md"))
    assert len(files) == 1
    assert "- From-agent: claude" in files[0].read_text()

    reader = env.as_session(SESSION_B, "codex")
    peek = env.run("inbox", "--peek", env=reader)
    assert "the webhook route moved to /v2/webhook" in peek.stdout
    assert "from claude/aaaa1111" in peek.stdout
    assert files[0].exists()
    read = env.run("inbox", env=reader)
    assert "the webhook route moved" in read.stdout
    assert not files[0].exists()
    assert (env.mailbox() / "read" / files[0].name).exists()
    assert "no unread mail" in env.run("inbox", env=reader).stdout


def test_concurrent_senders_each_get_a_file(env: Env) -> None:
    full_env = {**os.environ, "ZIRV_CTX_STATE_DIR": str(env.state)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "zirv_dash.cli.main", "ctx", "send", "--message", f"note {i}"],
            cwd=env.repo,
            env={**full_env, "ZIRV_CTX_SESSION": SESSION_A, "ZIRV_CTX_AGENT": "claude"},
            stdout=subprocess.DEVNULL,
        )
        for i in range(6)
    ]
    assert [p.wait(timeout=30) for p in procs] == [0] * 6
    files = sorted(env.mailbox().glob("*.md"))
    assert len(files) == 6
    bodies = sorted(f.read_text().split("\n\n", 1)[1] for f in files)
    assert bodies == [f"note {i}\n" for i in range(6)]


def test_sender_does_not_get_its_own_note(env: Env) -> None:
    me = env.as_session(SESSION_A, "claude")
    env.run("send", "--message", "note", env=me)
    assert "no unread mail" in env.run("inbox", env=me).stdout


def test_send_all_reaches_every_session_once(env: Env) -> None:
    assert env.run("send", "--all", "--message", "everyone").returncode == 0
    for session in (SESSION_A, SESSION_B):
        reader = env.as_session(session, "claude")
        assert "everyone" in env.run("inbox", env=reader).stdout
        assert "no unread mail" in env.run("inbox", env=reader).stdout
    markers = sorted(p.name for p in env.mailbox().glob("fanout/*.read/*"))
    assert markers == ["aaaa1111", "bbbb2222"]


def test_send_to_session_is_directed_and_writes_the_marker(
    env: Env, sleeper: subprocess.Popen[bytes]
) -> None:
    register(env, SESSION_B, sleeper.pid, agent="codex")
    result = env.run("send", "--to-session", "bb", "--message", "just you")
    assert result.returncode == 0, result.stderr
    text = next(env.mailbox().glob("*.md")).read_text()
    assert f"- To-session: {SESSION_B}" in text and "- To: codex" in text
    assert (env.state / "sessions" / "bbbb2222.nudge").read_text() == "operator\n"
    other = env.run("inbox", env=env.as_session(SESSION_A, "codex"))
    assert "no unread mail" in other.stdout
    target = env.run("inbox", env=env.as_session(SESSION_B, "codex"))
    assert "just you" in target.stdout


def test_message_from_stdin_and_long_body_sidecar(env: Env) -> None:
    body = "x" * 10_000
    assert env.run("send", "--message", "-", stdin=body).returncode == 0
    stored = next(env.mailbox().glob("*.md")).read_text()
    sidecar = next((env.mailbox() / "full").iterdir())
    assert f"[truncated; full body: {sidecar}]" in stored
    assert sidecar.read_text() == body


def test_config_limits_apply(env: Env) -> None:
    result = env.run("send", "--message", "y" * 300, env={"ZIRV_CTX_MAIL_MAX_MESSAGE_BYTES": "100"})
    assert result.returncode == 0, result.stderr
    assert len(list((env.mailbox() / "full").iterdir())) == 1


def test_inbox_neutralises_terminal_escapes(env: Env) -> None:
    env.run("send", "--message", "hi \x1b]52;c;ZXZpbA==\x07 there")
    out = env.run("inbox").stdout
    assert "\x1b" not in out and "\x07" not in out and "hi" in out


@pytest.mark.parametrize(
    "args",
    [
        ("send",),
        ("send", "--message", "   "),
        ("send", "--message", "x", "--all", "--to-session", "abcd"),
        ("nudge", "--message", "x"),
        ("inbox", "--bogus"),
        ("hook",),
        ("hook", "start"),
    ],
)
def test_usage_errors_exit_2(env: Env, args: tuple[str, ...]) -> None:
    result = env.run(*args)
    assert result.returncode == 2
    assert result.stderr.strip()
    assert "Traceback" not in result.stderr


def test_send_to_unknown_session_fails_and_lists(
    env: Env, sleeper: subprocess.Popen[bytes]
) -> None:
    register(env, SESSION_A, sleeper.pid)
    result = env.run("send", "--to-session", "ffff", "--message", "x")
    assert result.returncode == 1
    assert "no live session matches 'ffff'" in result.stderr and "aaaa1111" in result.stderr
    assert not env.mailbox().exists() or not list(env.mailbox().glob("*.md"))


# --- nudge -------------------------------------------------------------------


def test_nudge_stores_mail_then_marker(env: Env, sleeper: subprocess.Popen[bytes]) -> None:
    register(env, SESSION_A, sleeper.pid, verb="dash")
    result = env.run(
        "nudge",
        "aaaa",
        "--message",
        "please check the failing test",
        env=env.as_session(SESSION_B, "codex"),
    )
    assert result.returncode == 0, result.stderr
    assert "nudged aaaa1111" in result.stdout
    assert (env.state / "sessions" / "aaaa1111.nudge").read_text() == "bbbb2222\n"
    text = next(env.mailbox().glob("*-bbbb2222.md")).read_text()
    assert f"- To-session: {SESSION_A}" in text and "please check the failing test" in text


def test_nudge_prefix_rules(env: Env, sleeper: subprocess.Popen[bytes]) -> None:
    register(env, SESSION_A, sleeper.pid)
    register(env, "aaaa9999-x", sleeper.pid)
    short = env.run("nudge", "aaa", "--message", "x")
    assert short.returncode == 2
    assert "at least 4 characters" in short.stderr
    assert "aaaa1111" in short.stderr and "aaaa9999" in short.stderr
    ambiguous = env.run("nudge", "aaaa", "--message", "x")
    assert ambiguous.returncode == 1
    assert "ambiguous" in ambiguous.stderr and "aaaa9999" in ambiguous.stderr
    assert env.run("nudge", "aaaa9999", "--message", "x").returncode == 0
    assert not env.mailbox().exists() or len(list(env.mailbox().glob("*.md"))) == 1


def test_nudge_refuses_unreachable(env: Env, sleeper: subprocess.Popen[bytes]) -> None:
    register(env, SESSION_A, sleeper.pid, verb="wrap", reachable=False)
    result = env.run("nudge", "aaaa1111", "--message", "x")
    assert result.returncode == 1
    assert "bound no turn-signal socket" in result.stderr
    assert "zirv ctx send --to-session aaaa1111" in result.stderr
    assert not (env.state / "sessions" / "aaaa1111.nudge").exists()
    assert not env.mailbox().exists() or not list(env.mailbox().glob("*.md"))


def test_nudge_interactive_says_it_is_advisory(env: Env, sleeper: subprocess.Popen[bytes]) -> None:
    register(env, SESSION_A, sleeper.pid, verb="chat")
    result = env.run("nudge", "aaaa", "--message", "x")
    assert result.returncode == 0
    assert "advisory" in result.stdout


def test_nudge_stale_session_is_not_found(env: Env) -> None:
    register(env, SESSION_A, dead_pid())
    result = env.run("nudge", "aaaa1111", "--message", "x")
    assert result.returncode == 1
    assert "no live session" in result.stderr


# --- kill --------------------------------------------------------------------


def test_kill_terminates_the_process_group_and_is_idempotent(env: Env) -> None:
    # A session leader whose child ignores nothing: SIGTERM to the group ends both.
    proc = subprocess.Popen(["/bin/sh", "-c", "sleep 60 & wait"], start_new_session=True)
    try:
        register(env, SESSION_A, proc.pid)
        result = env.run("kill", "aaaa")
        assert result.returncode == 0, result.stderr
        assert "terminated aaaa1111" in result.stdout and "process group" in result.stdout
        assert proc.wait(timeout=10) != 0
        assert not (env.state / "sessions" / "aaaa1111.json").exists()
        again = env.run("kill", "aaaa1111")
        assert again.returncode == 0
        assert "nothing to kill" in again.stdout
    finally:
        proc.kill()
        proc.wait()


def test_kill_escalates_to_sigkill(env: Env) -> None:
    script = (
        "import signal, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "print('ready', flush=True)\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script], start_new_session=True, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        register(env, SESSION_A, proc.pid)
        result = env.run("kill", "aaaa1111", "--grace", "0.3")
        assert result.returncode == 0, result.stderr
        assert "SIGKILL" in result.stdout
        assert proc.wait(timeout=10) == -9
    finally:
        proc.kill()
        proc.wait()


def test_kill_of_a_dead_session_cleans_up(env: Env) -> None:
    register(env, SESSION_A, dead_pid())
    result = env.run("kill", "aaaa1111")
    assert result.returncode == 0
    assert "already gone" in result.stdout or "nothing to kill" in result.stdout
    assert not (env.state / "sessions" / "aaaa1111.json").exists()


# --- hook --------------------------------------------------------------------


def test_hook_stop_without_a_socket_is_silent(env: Env) -> None:
    result = env.run("hook", "stop")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    gone = env.run("hook", "stop", env={"ZIRV_CTX_SOCKET": str(env.state / "nope.sock")})
    assert (gone.returncode, gone.stdout, gone.stderr) == (0, "", "")


def test_hook_stop_posts_a_turn_signal(env: Env) -> None:
    path = env.state / "s" / "aaaa1111.sock"
    with TurnSignalServer.bind(path) as server:
        result = env.run("hook", "stop", env={"ZIRV_CTX_SOCKET": str(path)}, stdin='{"x": 1}')
        assert result.returncode == 0 and result.stderr == ""
        assert server.drain() == ["stop"]


# --- startup cost --------------------------------------------------------------


def test_ctx_verbs_do_not_import_the_ui_or_pydantic(env: Env) -> None:
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "zirv_dash.cli.main", "ctx", "status"],
        cwd=env.repo,
        env={**os.environ, "ZIRV_CTX_STATE_DIR": str(env.state)},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0
    imported = {line.split("|")[-1].strip() for line in result.stderr.splitlines()}
    heavy = {m for m in imported if m.split(".")[0] in ("textual", "rich", "pydantic", "pyte")}
    assert heavy == set()


# --- mail only for its addressee; bad input gets a clear error --------------------------


def _raw_run(
    env: Env, argv: list[bytes], stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("ZIRV_CTX_", "ZIRV_HOME"))}
    full_env["ZIRV_CTX_STATE_DIR"] = str(env.state)
    full_env["ZIRV_HOME"] = str(env.state / "home")
    return subprocess.run(
        [sys.executable.encode(), b"-m", b"zirv_dash.cli.main", b"ctx", *argv],
        cwd=env.repo,
        env=full_env,
        input=stdin,
        capture_output=True,
        timeout=30,
    )


def test_plain_inbox_leaves_directed_mail_for_its_addressee(
    env: Env, sleeper: subprocess.Popen[bytes]
) -> None:
    register(env, SESSION_B, sleeper.pid, agent="codex")
    assert env.run("send", "--to-session", "bbbb", "--message", "only for b").returncode == 0
    plain = env.run("inbox")
    assert plain.returncode == 0, plain.stderr
    assert "only for b" not in plain.stdout
    assert "1 message(s) addressed to specific sessions are left for them" in plain.stdout
    assert len(list(env.mailbox().glob("*.md"))) == 1  # not consumed
    target = env.run("inbox", env=env.as_session(SESSION_B, "codex"))
    assert "only for b" in target.stdout


def test_send_refuses_non_utf8_stdin_clearly(env: Env) -> None:
    result = _raw_run(env, [b"send", b"--message", b"-"], stdin=b"caf\xe9 \xff\n")
    assert result.returncode == 2
    err = result.stderr.decode()
    assert "Traceback" not in err
    assert "not UTF-8 text (bad byte at offset 3)" in err and "nothing was sent" in err
    assert not list(env.mailbox().glob("*.md"))


def test_send_refuses_non_utf8_argv_clearly(env: Env) -> None:
    result = _raw_run(env, [b"send", b"--message", b"caf\xe9"])
    assert result.returncode == 2
    err = result.stderr.decode()
    assert "Traceback" not in err and "not valid UTF-8" in err
    assert not list(env.mailbox().glob("*.md"))


@pytest.mark.parametrize("verb", ["send", "inbox", "status"])
def test_deleted_cwd_is_a_clear_error(env: Env, verb: str) -> None:
    gone = env.repo / "gone"
    gone.mkdir()
    args = "--message hi" if verb == "send" else ""
    run = f'exec "{sys.executable}" -m zirv_dash.cli.main ctx {verb} {args}'
    script = f'cd "{gone}" && rmdir "{gone}" && {run}'
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("ZIRV_CTX_", "ZIRV_HOME"))}
    full_env["ZIRV_CTX_STATE_DIR"] = str(env.state)
    result = subprocess.run(
        ["sh", "-c", script], env=full_env, capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "current directory no longer exists" in result.stderr


def test_full_mailbox_refuses_instead_of_dropping_unread(env: Env) -> None:
    home = env.state / "home"
    home.mkdir(parents=True, exist_ok=True)
    (home / "ctx.toml").write_text("[mail]\nkeep = 2\n")
    for n in range(2):
        assert env.run("send", "--message", f"note {n}").returncode == 0
    third = env.run("send", "--message", "note 2")
    assert third.returncode == 1 and "stored" not in third.stdout
    assert "already holds 2 messages" in third.stderr
    bodies = sorted(p.read_text().rsplit("\n\n", 1)[1] for p in env.mailbox().glob("*.md"))
    assert bodies == ["note 0\n", "note 1\n"]


def test_send_from_a_runaway_pipe_reads_only_what_can_be_kept(env: Env) -> None:
    big = "é" * (3 * 1024 * 1024)  # 6 MiB of two-byte characters
    result = env.run("send", "--message", "-", stdin=big)
    assert result.returncode == 0, result.stderr
    (sidecar,) = (env.mailbox() / "full").iterdir()
    data = sidecar.read_bytes()
    assert data.endswith(b"\n[truncated]\n") and len(data) <= 1024 * 1024 + 16
    data[: -len(b"\n[truncated]\n")].decode("utf-8")  # never cut inside a character


# --- config ------------------------------------------------------------------


def test_config_verb_edits_the_operator_file(env: Env) -> None:
    done = env.run("config", "set", "mail.keep", "7")
    assert done.returncode == 0, done.stderr
    assert (env.state / "home" / "ctx.toml").read_text() == "[mail]\nkeep = 7\n"
    assert env.run("config", "get", "mail.keep").stdout == "7\n"
    bad = env.run("config", "set", "mail.kep", "7")
    assert bad.returncode == 1 and "did you mean `mail.keep`?" in bad.stderr
    assert env.run("config", "set").returncode == 2  # usage
    inside = env.run("config", "set", "mail.keep", "9", env=env.as_session(SESSION_A, "claude"))
    assert inside.returncode == 1 and "ask the operator to run" in inside.stderr


def test_ctx_cli_imports_no_configuration_model() -> None:
    probe = "import sys, zirv_dash.cli.ctx; print('pydantic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_send_runs_without_the_settings_model_or_the_ui(env: Env) -> None:
    """`zirv ctx send` runs many times a minute: storing a note (with the repo's
    mail limits applied) must not import pydantic, pydantic-settings or Textual."""
    (env.repo / ".zirv").mkdir()
    (env.repo / ".zirv" / "ctx.toml").write_text("[mail]\nmax_message_bytes = 1024\n")
    probe = (
        "import sys\n"
        "from zirv_dash.cli.main import main\n"
        "sys.argv = ['zirv', 'ctx', 'send', '--message', 'x' * 3000]\n"
        "code = main()\n"
        "heavy = sorted(m for m in ('pydantic', 'pydantic_settings', 'textual', 'rich') "
        "if m in sys.modules)\n"
        "print(code, heavy)\n"
    )
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("ZIRV_")}
    full_env.update(ZIRV_CTX_STATE_DIR=str(env.state), ZIRV_HOME=str(env.state / "home"))
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=env.repo, env=full_env, capture_output=True, text=True
    )
    assert out.stdout.splitlines()[-1] == "0 []", out.stderr
    [stored] = (env.state / "mail" / env.slug).glob("*.md")
    assert "[truncated; full body:" in stored.read_text()  # the repo's limit was applied


def test_status_lists_processes_that_left_a_panes_session(
    env: Env, sleeper: subprocess.Popen[bytes]
) -> None:
    """What the dashboard (or its guard) recorded as escaped by setsid is listed
    while it still runs, as the quit notice promises."""
    from zirv_dash.panes import escapes

    escapes.note(env.state / "escaped", [(sleeper.pid, SESSION_A)])
    out = env.run("status")
    assert out.returncode == 0, out.stderr
    assert f"pid {sleeper.pid}" in out.stdout and "left session aaaa1111" in out.stdout
    data = json.loads(env.run("status", "--json").stdout)
    assert data["escaped"][0]["pid"] == sleeper.pid
    sleeper.kill()
    sleeper.wait()
    assert f"pid {sleeper.pid}" not in env.run("status").stdout


def test_nudge_to_a_shell_pane_says_it_waits_in_the_inbox(
    env: Env, sleeper: subprocess.Popen[bytes]
) -> None:
    register(env, SESSION_A, sleeper.pid, agent="shell", verb="dash")
    result = env.run("nudge", "aaaa", "--message", "x")
    assert result.returncode == 0, result.stderr
    assert "never types into a shell" in result.stdout
    assert "next idle moment" not in result.stdout
