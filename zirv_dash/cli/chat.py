"""`zirv chat`: open the dashboard, or a single wrapped session when it can't.

The dashboard needs a real terminal of at least 80x20. Smaller terminals,
`--simple` and `[dash] enabled = false` get the same agent as one wrapped
session (a plain PTY passthrough) with a one-line notice naming the floor.
"""

from __future__ import annotations

import gc
import logging
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from zirv_dash import outer_terminal, paths
from zirv_dash.cli.flags import APPEND, STORE_TRUE, Flag, Verb, build_parser, read_plain
from zirv_dash.config.layers import ConfigError, load_adapter_gate, load_settings
from zirv_dash.harnesses import adapters
from zirv_dash.harnesses.native_kind import NATIVE
from zirv_dash.keymap import Keymap, KeymapError, load_keymap
from zirv_dash.panes.session_env import child_env, nesting_refusal

if TYPE_CHECKING:
    import argparse

    from zirv_dash.cli.opening_frame import OpeningFrame, Outline
    from zirv_dash.config.layers import AdapterGate, Settings
    from zirv_dash.runtime import Engine
    from zirv_dash.session.dash_session import DashLink, DashUI
    from zirv_dash.session.host import Host

MIN_COLUMNS = 80
MIN_ROWS = 20

RUNTIMES = ("wrapped", NATIVE)
CHAT = Verb(
    "zirv chat",
    "Open the zirv dashboard.",
    Flag("--agent", help="harness for the first pane"),
    Flag("--model", help="model for the first pane"),
    Flag("--simple", action=STORE_TRUE, help="one wrapped session, no dashboard"),
    Flag("--allow-nested", action=STORE_TRUE, help="start inside another session"),
    Flag(
        "--runtime",
        choices=RUNTIMES,
        default="wrapped",
        help="wrapped: a harness CLI on a PTY; native: zirv's own session (~/.zirv/native.toml)",
    ),
    Flag(
        "--no-session",
        action=STORE_TRUE,
        help="own the panes in this process even with [session] persistent = true",
    ),
    Flag(
        "--pane",
        action=APPEND,
        metavar="AGENT[:PROMPT]",
        help="open another pane at start (repeatable)",
    ),
)
"""`zirv chat`'s flags: its parser and its plain reading are both made from this."""
WRAPPED_ONLY = (("agent", "--agent"), ("model", "--model"), ("simple", "--simple"))
"""Flags that choose or shape a wrapped harness: a native pane's route (in
~/.zirv/native.toml) names its model, and it has no single-session form."""


@dataclass(slots=True)
class ChatArgs:
    """What `zirv chat` was asked: one field a flag of `CHAT`."""

    agent: str | None
    model: str | None
    simple: bool
    allow_nested: bool
    runtime: str
    no_session: bool
    pane: list[str]


def parse_args(argv: list[str]) -> ChatArgs:
    """The command line; a plain one (`--agent NAME`, `--model M`, the flags) is
    read without argparse (see `flags`), anything else by argparse, which prints
    help and usage errors (and exits) as it always has."""
    plain = read_plain(CHAT, argv)
    if plain is not None:
        return ChatArgs(**plain)
    return ChatArgs(**vars(chat_parser().parse_args(argv)))


def chat_parser() -> argparse.ArgumentParser:
    import argparse  # only for a line `parse_args` does not read plainly

    return build_parser(CHAT, argparse.ArgumentParser)


def native_refusal(args: ChatArgs) -> str | None:
    """Why `--runtime native` cannot take these arguments (the flags by name)."""
    given = [flag for attr, flag in WRAPPED_ONLY if getattr(args, attr)]
    if not given:
        return None
    return (
        f"{', '.join(given)} {'applies' if len(given) == 1 else 'apply'} to a wrapped harness "
        "only; --runtime native takes its route and model from ~/.zirv/native.toml"
    )


def native_main(argv: list[str]) -> int:
    """`zirv native …`: the same as `zirv chat --runtime native …`."""
    return main(["--runtime", "native", *argv])


def terminal_size() -> tuple[int, int] | None:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return None
    try:
        size = os.get_terminal_size(sys.stdout.fileno())
    except OSError:
        return None
    return size.columns, size.lines


def state_refusal(start_log: bool = False) -> str | None:
    """Why the dashboard cannot keep its state, or None. Everything it shares
    with other processes (channels, registry, mail, the log) lives in the state
    dir, so one that cannot be written (a read-only file system, a file in the
    way) is said in one line before the UI takes the terminal, as tmux says it
    cannot create its socket directory, never as a traceback from deep inside."""
    base: Path | None = None
    try:
        base = paths.state_dir()
        # A temp name the start-up sweep knows, should this process die here.
        fd, probe = paths.make_temp(base, ".write-probe.tmp-")
        os.close(fd)
        os.unlink(probe)
        if start_log:
            setup_logging()
    except OSError as exc:
        # The directory itself, not the probe's random name inside it.
        where = str(base) if base is not None else exc.filename or "the state directory"
        return (
            f"zirv: cannot write the state directory ({where}: {exc.strerror or exc}); "
            f"set {paths.STATE_ENV} to a writable directory, or run one session "
            "without the dashboard with `zirv chat --simple`"
        )
    return None


def setup_logging() -> None:
    log_dir = paths.ensure_private_dir(paths.state_dir() / "logs")
    # 0600 and never through a symlink: the log names sessions and paths.
    log_file = paths.ensure_private_file(log_dir / "dash.log")
    logging.basicConfig(
        filename=str(log_file),
        level=logging.INFO,
        format="%(asctime)s %(process)d %(name)s %(levelname)s %(message)s",
    )
    # watchfiles logs every batch of changes at INFO; the log is for what a
    # user needs (errors, lifecycle), not for each file event.
    logging.getLogger("watchfiles").setLevel(logging.WARNING)


def main(argv: list[str]) -> int:
    # Start-up builds a few hundred thousand long-lived objects (pydantic, Textual,
    # the UI) and almost no garbage (~1,000 objects), yet the collector's passes
    # over them cost ~0.1 s of CPU before the first frame (about 170 collections,
    # measured with gc.callbacks; ~0.01 s with the pause). So it is paused
    # until the dashboard is mounted (`screens.app` freezes what exists then and
    # turns it back on), or until another path takes over, or this returns.
    gc.disable()
    try:
        return _main(argv)
    finally:
        gc.enable()


def _main(argv: list[str]) -> int:
    args = parse_args(argv)
    if not args.allow_nested:
        refusal = nesting_refusal(command="zirv chat")
        if refusal:
            print(refusal, file=sys.stderr)
            return 1
    repo = paths.repo_root()
    try:
        settings = load_settings(repo)
        gate = load_adapter_gate(repo, adapters.names())
        keymap = load_keymap(settings.dash.keymap)
    except (ConfigError, KeymapError) as exc:
        print(f"zirv: {exc}", file=sys.stderr)
        return 2
    if args.runtime == "native":
        return _native(args, repo, settings, keymap, gate)
    enabled = {n for n in adapters.names() if gate.enabled(n)}
    agent, reason = adapters.resolve_default(args.agent or settings.agent, enabled)
    if adapters.get(agent) is None:
        print(
            f"zirv: unknown agent {agent!r}; choose one of {', '.join(adapters.names())}",
            file=sys.stderr,
        )
        return 2
    if not gate.enabled(agent):
        print(f"zirv: agent {agent} is {gate.refusal(agent)}", file=sys.stderr)
        return 2
    if agent == "demo" and reason != "configured":
        print(f"zirv: {reason}", file=sys.stderr)

    size = terminal_size()
    notice = None
    if args.simple:
        notice = "zirv: --simple: running a single session (no dashboard)"
    elif not settings.dash.enabled:
        notice = "zirv: [dash] enabled = false: running a single session (no dashboard)"
    elif size is None:
        notice = "zirv: not a terminal: running a single session (the dashboard needs 80x20)"
    elif size[0] < MIN_COLUMNS or size[1] < MIN_ROWS:
        notice = (
            f"zirv: terminal is {size[0]}x{size[1]}; the dashboard needs at least "
            f"{MIN_COLUMNS}x{MIN_ROWS} — running a single session instead"
        )
    if notice is not None:
        return run_single(agent, args.model, repo, notice)
    if settings.session.persistent and not args.no_session and not args.pane:
        return _attach_runtime(agent, settings)

    return _open_dashboard(args, repo, settings, keymap, gate, agent, reason)


def _native(
    args: ChatArgs, repo: Path, settings: Settings, keymap: Keymap, gate: AdapterGate
) -> int:
    """The dashboard with a native pane first: checked before the UI takes the
    terminal (a bad native.toml is named here, not in a pane)."""
    refusal = native_refusal(args)
    if refusal:
        print(f"zirv: {refusal}", file=sys.stderr)
        return 2
    from zirv_dash.native.routes import RouteError, load_config

    try:
        load_config().route_for("orchestrator")
    except RouteError as exc:
        print(f"zirv: {exc}", file=sys.stderr)
        return 2
    size = terminal_size()
    why = None
    if not settings.dash.enabled:
        why = "[dash] enabled = false"
    elif size is None:
        why = "not a terminal"
    elif size[0] < MIN_COLUMNS or size[1] < MIN_ROWS:
        why = f"the terminal is {size[0]}x{size[1]}"
    if why is not None:
        print(
            f"zirv: --runtime native runs in the dashboard, which needs a terminal of at "
            f"least {MIN_COLUMNS}x{MIN_ROWS} ({why}); there is no single-session form",
            file=sys.stderr,
        )
        return 2
    if settings.session.persistent and not args.no_session and not args.pane:
        # As `zirv chat`: the runtime owns the conversation, so it outlives
        # this terminal (its first session is a native orchestrator).
        return _attach_runtime(NATIVE, settings)
    return _open_dashboard(args, repo, settings, keymap, gate, NATIVE, "configured")


def _open_dashboard(
    args: ChatArgs,
    repo: Path,
    settings: Settings,
    keymap: Keymap,
    gate: AdapterGate,
    agent: str,
    reason: str,
) -> int:
    refusal = state_refusal(start_log=True)
    if refusal:
        print(refusal, file=sys.stderr)
        return 1
    # Textual paints on a frame clock; at 240 fps a keystroke that lands just after
    # a frame waits at most ~4 ms for the next (idle p99 21 -> 15 ms). Frames are
    # only drawn when something changed, and streaming panes still repaint at most
    # 60 times a second (the terminal view coalesces them).
    os.environ.setdefault("TEXTUAL_FPS", "240")
    # Asked before the UI takes the terminal: its colour system and colours.
    outer = outer_terminal.probe(
        settings.dash.truecolor, underline_styles=settings.dash.underline_styles
    )
    extra = []
    for spec in args.pane:
        name, _, prompt = spec.partition(":")
        extra.append((name, prompt or None))
    outline = _outline(settings, keymap, 1 + len(extra))
    opening = _show_opening(outline, outer.color_system)
    started = None
    try:
        if agent != NATIVE and outline is not None:
            started = _prespawn(settings, repo, gate, agent, args.model, outline)
        from screens.app import run_dashboard
        from zirv_dash.cli.launch import LaunchOptions

        options = LaunchOptions(
            repo=repo,
            settings=settings,
            keymap=keymap,
            gate=gate,
            agent=agent,
            agent_reason=reason,
            model=args.model,
            initial_panes=extra,
            spinner=settings.dash.animated,
            outer=outer,
            on_takeover=opening.hand_over if opening is not None else None,
            started=started,
        )
        return run_dashboard(options)
    finally:
        if opening is not None:
            opening.close()
        if started is not None and started.dash.live_panes:
            started.dash.shutdown_all(grace=1.0)  # the UI never took them over


def _outline(settings: Settings, keymap: Keymap, sessions: int) -> Outline | None:
    """What the first frame will show, from the terminal's size and the settings."""
    size = terminal_size()
    if size is None:
        return None
    from zirv_dash.cli import opening_frame

    return opening_frame.Outline(
        columns=size[0],
        rows=size[1],
        sessions=sessions,
        sidebar_cols=settings.dash.sidebar_cols,
        footer_hint=opening_frame.footer_hint(keymap),
    )


def _show_opening(outline: Outline | None, probed: str | None) -> OpeningFrame | None:
    """The dashboard's outline, drawn while the UI loads (`zirv_dash.cli.opening_frame`)."""
    if outline is None:
        return None
    from zirv_dash.cli import opening_frame

    system = opening_frame.color_system(probed, os.environ)
    return opening_frame.OpeningFrame.show(outline, system)


def _prespawn(
    settings: Settings,
    repo: Path,
    gate: AdapterGate,
    agent: str,
    model: str | None,
    outline: Outline,
) -> Engine:
    """The dashboard's engine with its first pane already running, at the size the
    layout will give it: the child starts up while the UI loads (on another core),
    and the UI's first frame does not wait for the spawn."""
    from zirv_dash.dash.dashboard import Dashboard
    from zirv_dash.runtime import Engine
    from zirv_dash.runtime.prespawn import prespawn

    engine = Engine(Dashboard(settings, repo, gate, manage_state=True))
    engine.dash.resize_panes(*outline.pane_size())
    prespawn(engine, agent, model=model, role="orchestrator")
    return engine


def _attach_runtime(agent: str, settings: Settings) -> int:
    """`[session] persistent = true`: this terminal shows the repository's runtime
    dashboard (the runtime starts if nothing listens); the panes are the runtime's."""
    gc.enable()  # paused by `main` for the dashboard's start-up only
    refusal = state_refusal()
    if refusal:
        print(refusal, file=sys.stderr)
        return 1
    from zirv_dash.session.cli import attach_dashboard

    outer = outer_terminal.probe(settings.dash.truecolor)
    return attach_dashboard(agent, outer.color_system or "", outer.typed)


def hosted_dashboard(engine: Engine, link: DashLink, columns: int, rows: int) -> DashUI:
    """The runtime's `DashFactory`: the dashboard UI, loaded only when a client
    first attaches to it (a runtime nobody attached to never imports Textual)."""
    os.environ.setdefault("TEXTUAL_FPS", "240")  # as `_open_dashboard` says why
    from screens.hosted import start

    return start(engine, link, columns, rows)


def session_main(argv: list[str]) -> int:
    """`zirv session …`, with the runtime hosting the dashboard (`dash`)."""
    from zirv_dash.cli.remote_session import remote_session_main, wants_host
    from zirv_dash.session import cli as session_cli

    if argv[:1] in (["attach"], ["list"]) and wants_host(argv):
        return remote_session_main(argv)
    if argv[:1] == ["proxy"]:  # what `zirv remote` runs over ssh (session/proxy.py)
        from zirv_dash.session.proxy import proxy_main

        return proxy_main(argv[1:])
    if argv[:1] == ["web"]:
        import importlib

        web = importlib.import_module("zirv_dash.session.web")
        result: int = web.web_main(argv[1:])
        return result

    return session_cli.session_main(argv, host_factory=runtime_host)


def runtime_host() -> Host:
    """The runtime `zirv session serve` runs here: the engine, the hosted dashboard,
    and the links to the operator's remote hosts (their panes show in that
    dashboard; they are never served on as this runtime's sessions)."""
    from zirv_dash.remote.engine_links import open_runtime_links
    from zirv_dash.session.runtime import open_host

    host = open_host(dashboard=hosted_dashboard)
    open_runtime_links(host)
    return host


def run_single(agent: str, model: str | None, repo: os.PathLike[str] | str, notice: str) -> int:
    gc.enable()  # paused by `main` for the dashboard's start-up only
    from zirv_dash.panes.wrap import run_wrapped

    adapter = adapters.ADAPTERS[agent]
    if not adapter.installed():
        print(f"zirv: {adapter.binary}: command not found on PATH", file=sys.stderr)
        return 127
    session_id = paths.new_session_id()
    env = child_env(session_id, agent)
    argv = adapter.interactive_argv(None, model)
    if shutil.which(argv[0]) is None and not os.path.isabs(argv[0]):
        print(f"zirv: {argv[0]}: command not found on PATH", file=sys.stderr)
        return 127
    return run_wrapped(argv, env, str(repo), notice=notice)
