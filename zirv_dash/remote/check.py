"""`zirv remote check`: reach a host and say exactly what is wrong, or that it works.

Three steps, each stopping with its own reason: ssh reaches the host and finds its
`zirv` (`zirv --version`: release and protocol), the protocol versions match,
and `zirv session proxy` reaches a runtime there (its hello, then its sessions).
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field

from zirv_dash.remote.channel import Channel, LinkError, classify, install_hint
from zirv_dash.remote.hosts import Host
from zirv_dash.remote.link import CONNECT_TIMEOUT_S, version_argv
from zirv_dash.session.protocol import PROTOCOL_VERSION

VERSION_LINE = re.compile(r"zirv (\S+)(?: \(protocol (\d+)\))?")
CHECK_TIMEOUT_S = CONNECT_TIMEOUT_S + 20.0


@dataclass(slots=True)
class Report:
    host: Host
    ok: bool = False
    problem: str = ""
    kind: str = ""
    release: str = ""
    protocol: int | None = None
    sessions: list[dict[str, object]] = field(default_factory=list)

    def lines(self) -> list[str]:
        head = f"{self.host.name} ({self.host.dest})"
        if not self.ok:
            return [f"{head}: {self.problem}"]
        said = [f"{head}: ok — zirv {self.release}, protocol {self.protocol}"]
        said.append(f"  runtime: {len(self.sessions)} session(s)")
        for session in self.sessions[:20]:
            sid, name = session.get("id", "?"), session.get("name", "")
            said.append(f"    {sid}  {name}  {session.get('state', '')}")
        return said

    def to_json(self) -> dict[str, object]:
        return {
            "host": self.host.name,
            "dest": self.host.dest,
            "ok": self.ok,
            "problem": self.problem or None,
            "kind": self.kind or None,
            "release": self.release or None,
            "protocol": self.protocol,
            "sessions": len(self.sessions),
        }


def check(host: Host) -> Report:
    report = Report(host)
    try:
        done = subprocess.run(
            version_argv(host),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=CHECK_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return _fail(
            report, f"no answer from {host.dest} within {CHECK_TIMEOUT_S:.0f} s", "stalled"
        )
    except OSError as exc:
        return _fail(report, f"cannot run ssh: {exc}", "unreachable")
    out = done.stdout.decode("utf-8", "replace").strip()
    err = done.stderr.decode("utf-8", "replace")
    if done.returncode != 0:
        problem = classify(host, done.returncode, err)
        return _fail(report, _unprefixed(host, str(problem)), problem.kind)
    found = VERSION_LINE.search(out)
    if found is None:
        return _fail(
            report,
            f"`{host.zirv} --version` printed {out[:80]!r}, not a zirv version;"
            f" install zirv there: {install_hint(host)}",
            "no_zirv",
        )
    report.release = found.group(1)
    report.protocol = int(found.group(2)) if found.group(2) else None
    if report.protocol != PROTOCOL_VERSION:
        theirs = (
            "no protocol version (too old)"
            if report.protocol is None
            else f"protocol {report.protocol}"
        )
        return _fail(
            report,
            f"zirv {report.release} there speaks {theirs}, this zirv protocol"
            f" {PROTOCOL_VERSION}: install the same zirv there ({install_hint(host)})",
            "protocol",
        )
    try:
        with Channel(host) as channel:
            listed = channel.call("session.list")
    except LinkError as exc:
        return _fail(report, _unprefixed(host, str(exc)), exc.kind)
    sessions = listed.get("sessions", []) if isinstance(listed, dict) else []
    report.sessions = [s for s in sessions if isinstance(s, dict)]
    report.ok = True
    return report


def _fail(report: Report, problem: str, kind: str) -> Report:
    report.problem, report.kind = problem, kind
    return report


def _unprefixed(host: Host, message: str) -> str:
    prefix = f"{host.name}: "
    return message[len(prefix) :] if message.startswith(prefix) else message
