"""What a host's rows say while its link is down, by the fault (remote/channel.py
`LinkError.kind`); the dashboard's error line carries the whole message."""

from __future__ import annotations

from zirv_dash.remote.channel import LinkError

FAULTS = {
    "runtime_stopped": "runtime stopped on {host}",
    "no_runtime": "runtime stopped on {host}",
    "no_zirv": "no zirv on {host}",
    "protocol": "{host} sent something that is not protocol v1",
    "stalled": "{host} does not answer",
    "permission": "ssh to {host} was refused",
    "host_key": "ssh refused {host}'s host key",
}


def fault_reason(host: str, exc: BaseException | None) -> str:
    kind = exc.kind if isinstance(exc, LinkError) else ""
    what = FAULTS.get(kind, "the link to {host} is down").format(host=host)
    return f"{what}; reconnecting"
