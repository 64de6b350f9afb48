"""The real vendor CLIs, where installed: first screens, quitting, rendering.

Each CLI runs on a real PTY in a `Pane` (120x40) with a throwaway HOME and a
throwaway git repository as its working directory, offline. Its first screen
must be recognised: a trust or login dialog as needs-you (and never as its
input prompt), an ordinary composer as the input prompt. Quitting at a dialog
(the dashboard's own stop path) must leave the trust records as they were;
at the input prompt the adapter's quit sequence must end the CLI. The screen
our terminal model shows must equal tmux's for the same bytes.

Install them as CI does (see the README):
    npm install -g --prefix /opt/zirv-vendor <packages>
They are looked up in /opt/zirv-vendor/bin, then on PATH; a missing one skips.
Select these tests with `-m vendor`.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from zirv_dash.attention.tracker import at_input_prompt, detect_needs_you
from zirv_dash.harnesses import adapters
from zirv_dash.panes.pane import Pane
from zirv_dash.panes.spec import PaneSpec

pytestmark = [pytest.mark.vendor, pytest.mark.timeout(180)]

VENDOR_BIN = Path("/opt/zirv-vendor/bin")
COLS, ROWS = 120, 40
FIRST_SCREEN_SECS = 30.0
SLOW_START_SECS = 90.0
"""opencode waits out its network look-ups before it draws anything offline."""


def find(binary: str) -> str | None:
    path = os.pathsep.join([str(VENDOR_BIN), os.environ.get("PATH", "")])
    return shutil.which(binary, path=path)


@dataclass
class Run:
    """One CLI on a PTY, its output recorded as it is parsed."""

    pane: Pane
    home: Path
    repo: Path
    stream: bytearray = field(default_factory=bytearray)

    def screen(self) -> list[str]:
        return self.pane.model_view.lines()

    def text(self) -> str:
        return "\n".join(self.screen())

    def step(self) -> None:
        if self.pane.read_available():
            self.stream += self.pane.inbox[-1]
        while self.pane.pump(1 << 16):
            pass
        if self.pane.pty is not None:
            self.pane.pty.flush()  # our answers to its terminal queries

    def await_(self, what: str, cond: Callable[[], bool], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not cond():
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{self.pane.agent}: no {what} in {timeout:.0f}s:\n{self.text()}"
                )
            if self.pane.poll_exit() is not None:
                raise AssertionError(
                    f"{self.pane.agent} exited ({self.pane.exit_code}):\n{self.text()}"
                )
            self.step()
            time.sleep(0.02)

    def await_exit(self, timeout: float) -> int:
        deadline = time.monotonic() + timeout
        while (code := self.pane.poll_exit()) is None:
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.pane.agent} did not exit:\n{self.text()}")
            self.step()
            time.sleep(0.02)
        return code

    def settle(self, quiet: float = 1.0, limit: float = 10.0) -> None:
        """Wait for `quiet` seconds without output (bounded by `limit`)."""
        end = time.monotonic() + limit
        last = time.monotonic()
        while time.monotonic() < end and time.monotonic() - last < quiet:
            before = len(self.stream)
            self.step()
            if len(self.stream) != before:
                last = time.monotonic()
            time.sleep(0.05)


def _strays(home: Path) -> list[int]:
    """Processes of ours still running with this HOME (daemons a CLI detached)."""
    found = []
    needle = f"HOME={home}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Callable[..., Run]]:
    runs: list[Run] = []

    def _start(agent: str, env: dict[str, str] | None = None, argv: list[str] | None = None) -> Run:
        adapter = adapters.ADAPTERS[agent]
        binary = find(adapter.binary)
        if binary is None:
            pytest.skip(f"{adapter.binary} is not installed (not in {VENDOR_BIN} nor on PATH)")
        home, repo = tmp_path / "home", tmp_path / "repo"
        home.mkdir(exist_ok=True)
        repo.mkdir(exist_ok=True)
        git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
        subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
        (repo / "README").write_text("a throwaway repository\n")
        subprocess.run([*git, "add", "README"], cwd=repo, check=True)
        subprocess.run([*git, "commit", "-qm", "init"], cwd=repo, check=True)
        # The argv the dashboard would launch, with the binary found here.
        full = [binary, *adapter.interactive_argv(extra=argv or [])[1:]]
        pane = Pane(PaneSpec(agent, adapter, full, str(repo)), COLS, ROWS, 1 << 22)
        child_env = {
            "PATH": os.pathsep.join(
                [str(Path(binary).parent), "/usr/local/bin", "/usr/bin", "/bin"]
            ),
            "HOME": str(home),
            "TERM": "xterm-256color",
            "LANG": "C.UTF-8",
            **(env or {}),
        }
        assert pane.start(child_env), pane.spawn_error
        run = Run(pane, home, repo)
        runs.append(run)
        return run

    yield _start
    for run in runs:
        if run.pane.alive:
            run.pane.stop(grace=1.0)
        for pid in _strays(run.home):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def assert_renders_as_in_tmux(run: Run) -> None:
    """The bytes the CLI wrote, replayed into a plain tmux pane of the same
    size, give the screen our model shows."""
    if shutil.which("tmux") is None:
        return
    from tests.terminal.regen_fidelity import tmux_screen

    stream = run.home.parent / f"{run.pane.agent}.bin"
    stream.write_bytes(bytes(run.stream))
    ours = [row.rstrip(" ") for row in run.screen()]
    expected, _ = tmux_screen(stream, COLS, ROWS)
    if ours != expected:
        # tmux_screen gives tmux a fixed 0.3 s to parse the stream's tail; on a
        # loaded machine a long stream (droid's animated splash) needs longer.
        expected, _ = tmux_screen(stream, COLS, ROWS)
    assert ours == expected


def assert_dialog(run: Run, words: str, timeout: float = FIRST_SCREEN_SECS) -> None:
    run.await_(repr(words), lambda: words in run.text(), timeout)
    run.await_("needs-you", lambda: detect_needs_you(run.pane.agent, run.screen()) is not None, 5)
    run.settle()
    assert detect_needs_you(run.pane.agent, run.screen()) is not None, run.text()
    assert not at_input_prompt(run.pane.agent, run.screen(), run.pane.model_view.cursor)
    assert not run.pane.at_input_prompt()


def assert_input_prompt(run: Run, timeout: float = FIRST_SCREEN_SECS) -> None:
    run.await_("input prompt", run.pane.at_input_prompt, timeout)
    run.settle()
    assert run.pane.at_input_prompt(), run.text()
    assert detect_needs_you(run.pane.agent, run.screen()) is None


def quit_by_typing(run: Run) -> None:
    """The dashboard's stop ladder at the input prompt types the adapter's quit
    sequence (Enter deferred where the adapter says so), and that alone ends
    the CLI, before any signal."""
    adapter = run.pane.adapter
    assert adapter.quit_sequence, f"{adapter.name} has no quit sequence"
    assert run.pane.pty is not None
    # Ink CLIs draw the composer before they read keys (Gemini drops a line
    # typed right after its first frame on a loaded machine): quit a settled
    # prompt, as an operator would.
    run.settle(quiet=2.0, limit=15.0)
    typed_ok = run.pane.at_input_prompt()
    assert typed_ok
    ladder = run.pane.pty.stop_for(
        adapter.name,
        adapter.quit_sequence,
        typed_ok=typed_ok,
        grace=20.0,
        defer_submit=adapter.defer_submit,
    )
    while ladder.stage in ("start", "quit") and run.pane.pty.poll() is None:
        ladder.step()
        time.sleep(0.02)
    assert ladder.stage == "quit", f"{adapter.name} ignored {adapter.quit_sequence!r}"
    ladder.run()
    assert run.pane.poll_exit() == 0
    assert_nothing_left(run)


def assert_nothing_left(run: Run) -> None:
    """No process of the CLI outlives it (a detached daemon would)."""
    deadline = time.monotonic() + 5
    while (left := _strays(run.home)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert left == [], [Path(f"/proc/{pid}/cmdline").read_bytes() for pid in left]


def stop_at_dialog(run: Run) -> None:
    """The dashboard's own stop path, at a dialog: nothing may be answered."""
    run.pane.stop(grace=2.0)
    # What the CLI wrote as it went is parsed first (no engine pumps here): the
    # exit reads as final only once the pane's output is drained.
    while run.pane.inbox:
        run.pane.pump(run.pane.inbox_bytes or 65536)
    assert run.pane.poll_exit() is not None
    assert_nothing_left(run)


# -- the trust dialogs: quitting there trusts nothing -------------------------------------


def test_claude_trust_prompt(start: Callable[..., Run], tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".claude.json").write_text(json.dumps({"hasCompletedOnboarding": True}))
    run = start("claude")
    assert_dialog(run, "Yes, I trust this folder")
    assert_renders_as_in_tmux(run)
    stop_at_dialog(run)
    projects = json.loads((home / ".claude.json").read_text()).get("projects", {})
    assert not projects.get(str(run.repo), {}).get("hasTrustDialogAccepted"), projects


def codex_login(home: Path) -> None:
    """A dummy API-key login: Codex then starts offline (the key is checked on
    the first request)."""
    home.mkdir(exist_ok=True)
    codex = find("codex")
    if codex is None:
        pytest.skip("codex is not installed")
    env = {"HOME": str(home), "PATH": f"{Path(codex).parent}:/usr/bin:/bin"}
    subprocess.run(
        [codex, "login", "--with-api-key"],
        input="sk-dummy-offline\n",
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )


def test_codex_trust_prompt(start: Callable[..., Run], tmp_path: Path) -> None:
    home = tmp_path / "home"
    codex_login(home)
    run = start("codex")
    assert_dialog(run, "Trust this folder?")
    assert_renders_as_in_tmux(run)
    stop_at_dialog(run)
    config = home / ".codex" / "config.toml"
    assert str(run.repo) not in (config.read_text() if config.exists() else "")


def test_gemini_trust_prompt(start: Callable[..., Run], tmp_path: Path) -> None:
    run = start("gemini")
    assert_dialog(run, "Do you trust the files in this folder?")
    assert_renders_as_in_tmux(run)
    stop_at_dialog(run)
    trusted = tmp_path / "home" / ".gemini" / "trustedFolders.json"
    assert str(run.repo) not in (trusted.read_text() if trusted.exists() else "")


def test_copilot_trust_prompt(start: Callable[..., Run], tmp_path: Path) -> None:
    run = start("copilot")
    assert_dialog(run, "Do you trust the files in this folder?")
    assert_renders_as_in_tmux(run)
    stop_at_dialog(run)
    # "Yes, and remember this folder" lands in config.json's trustedFolders.
    config = tmp_path / "home" / ".copilot" / "config.json"
    assert str(run.repo) not in (config.read_text() if config.exists() else "")


# -- login dialogs ------------------------------------------------------------------------


def test_qwen_auth_dialog(start: Callable[..., Run]) -> None:
    run = start("qwen")
    assert_dialog(run, "Select Authentication Method")
    assert_renders_as_in_tmux(run)
    stop_at_dialog(run)


def test_droid_login_screen(start: Callable[..., Run]) -> None:
    run = start("droid")
    assert_dialog(run, "Please login with your Factory account")
    assert_renders_as_in_tmux(run)
    stop_at_dialog(run)


# -- first screen is the input prompt: the quit sequence ends the CLI ---------------------


def test_opencode_input_prompt_and_quit(start: Callable[..., Run]) -> None:
    run = start("opencode")
    assert_input_prompt(run, timeout=SLOW_START_SECS)
    assert_renders_as_in_tmux(run)
    quit_by_typing(run)


def test_pi_input_prompt_and_quit(start: Callable[..., Run]) -> None:
    run = start("pi")
    assert_input_prompt(run)
    assert_renders_as_in_tmux(run)
    quit_by_typing(run)


def test_grok_input_prompt_and_quit(start: Callable[..., Run]) -> None:
    run = start("grok", env={"GROK_API_KEY": "dummy-offline"})
    assert_input_prompt(run)
    assert_renders_as_in_tmux(run)
    quit_by_typing(run)


def test_qwen_input_prompt_and_quit(start: Callable[..., Run]) -> None:
    # An OpenAI-compatible key and a dead local endpoint skip its auth dialog.
    env = {
        "OPENAI_API_KEY": "dummy-offline",
        "OPENAI_BASE_URL": "http://127.0.0.1:9",
        "OPENAI_MODEL": "qwen3-coder-plus",
    }
    run = start("qwen", env=env)
    assert_input_prompt(run)
    assert_renders_as_in_tmux(run)
    quit_by_typing(run)


# -- the three main CLIs, past their first-run dialogs ---------------------------------------


def test_claude_input_prompt_and_quit(start: Callable[..., Run], tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    trusted = {str(tmp_path / "repo"): {"hasTrustDialogAccepted": True}}
    (home / ".claude.json").write_text(
        json.dumps({"hasCompletedOnboarding": True, "projects": trusted})
    )
    run = start("claude")
    assert_input_prompt(run)
    assert_renders_as_in_tmux(run)
    quit_by_typing(run)


def test_codex_input_prompt_and_quit(start: Callable[..., Run], tmp_path: Path) -> None:
    home = tmp_path / "home"
    codex_login(home)
    repo = tmp_path / "repo"
    with (home / ".codex" / "config.toml").open("a") as config:
        config.write(f'\n[projects."{repo}"]\ntrust_level = "trusted"\n')
    run = start("codex")
    assert_input_prompt(run)
    assert_renders_as_in_tmux(run)
    quit_by_typing(run)


def test_gemini_input_prompt_and_quit(start: Callable[..., Run], tmp_path: Path) -> None:
    gemini = tmp_path / "home" / ".gemini"
    gemini.mkdir(parents=True)
    (gemini / "trustedFolders.json").write_text(
        json.dumps({str(tmp_path / "repo"): "TRUST_FOLDER"})
    )
    auth = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
    (gemini / "settings.json").write_text(json.dumps(auth))
    run = start("gemini", env={"GEMINI_API_KEY": "dummy-offline"})
    assert_input_prompt(run)
    assert_renders_as_in_tmux(run)
    quit_by_typing(run)
