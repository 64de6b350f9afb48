"""`zirv ctx status --all-hosts`: every remote host's sessions, beside this machine's.

Each host is asked over its own ssh link (`session.list`), all at once in
threads, each bounded by the link's timeout: an unreachable or stalled host is
one line saying why, and never holds the others back.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from zirv_dash.remote import hosts
from zirv_dash.remote.channel import Channel, LinkError
from zirv_dash.remote.hosts import Host

STATUS_TIMEOUT_S = 15.0
FIELDS = ("id", "name", "harness", "state", "pid", "repo")


def host_sessions(host: Host, timeout: float = STATUS_TIMEOUT_S) -> dict[str, Any]:
    """One host: its sessions (each with `host`), or the reason it has none to show."""
    entry: dict[str, Any] = {"host": host.name, "dest": host.dest, "error": None, "sessions": []}
    try:
        with Channel(host, timeout) as channel:
            listed = channel.call("session.list").get("sessions", [])
    except (LinkError, OSError) as exc:
        entry["error"] = str(exc)
        return entry
    for facts in listed:
        if isinstance(facts, dict) and facts.get("id") != "dash":  # the hosted dashboard
            row: dict[str, Any] = {"host": host.name}
            row.update({key: facts.get(key) for key in FIELDS})
            entry["sessions"].append(row)
    return entry


def all_hosts() -> tuple[list[dict[str, Any]], str | None]:
    """Every known host's entry (in `remotes.toml` order), or why none were read."""
    try:
        known = list(hosts.load().values())
    except hosts.HostError as exc:
        return [], f"remote hosts: {exc}"
    if not known:
        return [], None
    with ThreadPoolExecutor(max_workers=min(8, len(known))) as pool:
        return list(pool.map(host_sessions, known)), None


def lines(entries: list[dict[str, Any]]) -> list[str]:
    out: list[str] = []
    for entry in entries:
        if entry["error"]:
            out.append(f"host {entry['host']}: {entry['error']}")
            continue
        sessions = entry["sessions"]
        out.append(f"host {entry['host']}: {len(sessions)} session(s)")
        for row in sessions:
            out.append(
                f"  {row['id']} {row['harness'] or '?'} {row['name'] or '-'} {row['state']}"
                f" @{row['host']}"
            )
    return out
