"""`zirv ctx kill PREFIX`: end a registered session (its whole process session
when it leads one), SIGTERM then SIGKILL, confirming by pid and start time."""

from __future__ import annotations

import os
import signal
import time

from zirv_dash.cli.ctx_args import Parser
from zirv_dash.cli.ctx_common import err, parse_args, report_problems
from zirv_dash.cli.ctx_kill_native import end_native, is_native
from zirv_dash.panes import procinfo, registry

KILL_GRACE_SECS = 3.0
KILL_CONFIRM_SECS = 2.0


def kill_main(argv: list[str]) -> int:
    parser = Parser(prog="zirv ctx kill", description="Terminate a registered session.")
    parser.add_argument("prefix", metavar="PREFIX", help="short id (>= 4 chars or whole)")
    parser.add_argument(
        "--grace", type=float, default=KILL_GRACE_SECS, help="seconds between SIGTERM and SIGKILL"
    )
    args = parse_args(parser, argv)
    if isinstance(args, int):
        return args
    problems: list[str] = []
    records = registry.list_sessions(sweep=True, problems=problems)
    report_problems("kill", problems)
    try:
        record = registry.resolve_prefix(args.prefix, records)
    except registry.ResolveError as exc:
        if exc.kind == "not-found":
            print(
                f"zirv ctx kill: no session matches {args.prefix!r}; nothing to kill "
                "(already gone?)"
            )
            return 0
        err("kill", str(exc))
        return 2 if exc.kind == "too-short" else 1
    if not registry.is_alive(record):
        registry.unregister(record.short)
        print(f"zirv ctx kill: {registry.describe(record)} is already gone; record removed")
        return 0
    if is_native(record):  # its pid is its dashboard's: never signalled
        return end_native(record, max(args.grace, 0.0))
    return _terminate(record, max(args.grace, 0.0))


def _terminate(record: registry.SessionRecord, grace: float) -> int:
    pid = record.pid
    if pid in (os.getpid(), os.getppid()):
        err("kill", f"refusing to kill {registry.describe(record)}: that is this process")
        return 1
    if procinfo.session_members(pid, record.start_time) and _leads_session(pid):
        return _end_session(record, grace)
    group = _process_group(pid)
    how = "process group" if group is not None else "process"
    watcher = _DeathWatch(pid)
    try:
        if not _signal(pid, group, signal.SIGTERM):
            print(f"zirv ctx kill: {registry.describe(record)} is already gone; record removed")
            registry.unregister(record.short)
            return 0
        if watcher.wait(grace, record.start_time):
            registry.unregister(record.short)
            print(f"zirv ctx kill: terminated {registry.describe(record)} ({how}, SIGTERM)")
            return 0
        _signal(pid, group, signal.SIGKILL)
        if watcher.wait(KILL_CONFIRM_SECS, record.start_time):
            registry.unregister(record.short)
            print(
                f"zirv ctx kill: killed {registry.describe(record)} ({how}, SIGKILL after "
                f"{grace:g}s grace)"
            )
            return 0
    except PermissionError:
        err("kill", f"not permitted to signal pid {pid} of {registry.describe(record)}")
        return 1
    finally:
        watcher.close()
    err("kill", f"pid {pid} of {registry.describe(record)} survived SIGKILL; check `ps {pid}`")
    return 1


def _leads_session(pid: int) -> bool:
    try:
        return os.getsid(pid) == pid and os.getsid(pid) != os.getsid(0)
    except OSError:
        return False


def _end_session(record: registry.SessionRecord, grace: float) -> int:
    """A pane's child leads its own session: the same ladder as the dashboard's
    stop (the harness's quit signal to every process group of the session, the
    grace, SIGKILL, verified by walking /proc), so jobs a shell started in groups
    of their own end too and a shell (which ignores SIGTERM) ends on SIGHUP."""
    from zirv_dash.panes.ladder import quit_signals

    signals = quit_signals(record.agent)
    names = "/".join(signal.Signals(sig).name for sig in signals)
    ended = procinfo.end_sessions(
        {record.pid: record.start_time}, signals=signals, grace=grace, confirm=KILL_CONFIRM_SECS
    )
    if ended.survivors:
        err("kill", f"pids {ended.survivors} of {registry.describe(record)} survived SIGKILL")
        return 1
    registry.unregister(record.short)
    if ended.escalated:
        print(
            f"zirv ctx kill: killed {registry.describe(record)} (every process group of its "
            f"session, SIGKILL after {grace:g}s grace)"
        )
    else:
        print(
            f"zirv ctx kill: terminated {registry.describe(record)} (every process group "
            f"of its session, {names})"
        )
    return 0


def _process_group(pid: int) -> int | None:
    """The pid's own process group, if it leads one that is not ours."""
    try:
        group = os.getpgid(pid)
    except OSError:
        return None
    if group != pid or group == os.getpgrp():
        return None
    return group


def _signal(pid: int, group: int | None, sig: signal.Signals) -> bool:
    try:
        if group is not None:
            os.killpg(group, sig)
        else:
            os.kill(pid, sig)
    except ProcessLookupError:
        return False
    return True


class _DeathWatch:
    """Wait for a process to end: a pidfd where the kernel has one, else polling."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._fd: int | None = None
        opener = getattr(os, "pidfd_open", None)
        if opener is not None:
            try:
                self._fd = opener(pid)
            except OSError:
                self._fd = None

    def wait(self, timeout: float, start_time: float | None) -> bool:
        deadline = time.monotonic() + timeout
        if self._fd is not None:
            import select

            poller = select.poll()
            poller.register(self._fd, select.POLLIN)
            poller.poll(max(int(timeout * 1000), 0))
            # A pidfd turns readable at exit; zombies (our own children) count as gone.
        while True:
            if not procinfo.is_same_process(self.pid, start_time):
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            time.sleep(min(0.05, remaining))

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
