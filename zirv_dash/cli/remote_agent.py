"""`zirv agent --host NAME HARNESS PROMPT|-`: delegate to a remote host's runtime.

The harness starts in that host's runtime, in its repository, with the prompt
as its first one (`session.start` over the host's ssh link, remote/channel.py);
its mail and nudges are that runtime's, and the dashboards linked to the host
show it as a pane. The receipt names the host and the session there.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from zirv_dash.remote import hosts
from zirv_dash.remote.channel import Channel, LinkError
from zirv_dash.session.methods import START_PROMPT

PROG = "zirv agent"
MAX_MODEL = 128


class _Usage(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:
        raise _Usage(f"{self.prog}: {message}")


def remote_agent_main(argv: list[str]) -> int:
    parser = _Parser(prog=f"{PROG} --host NAME")
    parser.add_argument("--host", required=True)
    parser.add_argument("harness")
    parser.add_argument("prompt", help="the first prompt, or - to read it from stdin")
    parser.add_argument("--model", default="")
    parser.add_argument("--name", default="")
    parser.add_argument("--json", action="store_true")
    try:
        args = parser.parse_args(argv)
        prompt = sys.stdin.read() if args.prompt == "-" else args.prompt
        prompt = prompt.strip()
        if not prompt:
            raise _Usage(f"{PROG}: the prompt is empty")
        if prompt.startswith("-") or args.model.startswith("-") or len(args.model) > MAX_MODEL:
            raise _Usage(f"{PROG}: a prompt or model may not begin with '-'")
        host = hosts.load().get(args.host)
        if host is None:
            raise hosts.HostError(f"no host named {args.host!r}; see `zirv remote list`")
        facts = _start(host, args.harness, prompt, args.model, args.name)
    except _Usage as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except SystemExit as exc:
        return int(exc.code or 0)
    except (hosts.HostError, LinkError, OSError) as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 1
    receipt = {
        "host": host.name,
        "session": facts.get("id"),
        "harness": facts.get("harness"),
        "name": facts.get("name"),
        "state": facts.get("state"),
    }
    if args.json:
        print(json.dumps(receipt, indent=2))
    else:
        print(
            f"{PROG}: started {receipt['harness']} on {host.name} as {receipt['session']}"
            f" (see it: zirv session attach {receipt['session']} --host {host.name})"
        )
    return 0


def _start(host: hosts.Host, harness: str, prompt: str, model: str, name: str) -> dict[str, Any]:
    with Channel(host) as channel:
        if START_PROMPT not in channel.hello.capabilities:
            raise LinkError(
                f"{host.name}: its runtime takes no first prompt over the link;"
                f" install this zirv there (`zirv remote install {host.name}`)",
                "protocol",
            )
        params = {"harness": harness, "prompt": prompt, "model": model, "name": name}
        started: dict[str, Any] = channel.call("session.start", params).get("session", {})
    return started
