"""`zirv ctx usage [--json]`: each vendor's 5-hour and 7-day windows, their source and age."""

from __future__ import annotations

import json
import sys
import time
from typing import TYPE_CHECKING

from zirv_dash.cli.ctx_common import err, parse_args
from zirv_dash.textfmt import age_text as _age

if TYPE_CHECKING:
    from zirv_dash.context.limits import BreakerRecord
    from zirv_dash.context.window import PaceConfig, UsageWindow

DASH = "–"


def usage_main(argv: list[str]) -> int:
    if argv[:1] == ["tee"]:  # the statusline: nothing else is imported for it
        from zirv_dash.cli.ctx_usage_tee import tee_main

        return tee_main(argv[1:])
    from zirv_dash.cli.ctx_args import Parser

    parser = Parser(
        prog="zirv ctx usage",
        description="The 5-hour and 7-day usage windows per vendor, each reading's source and "
        "age. `zirv ctx usage tee -- CMD...` is Claude Code's statusLine command: it records "
        "the windows, then runs CMD.",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parse_args(parser, argv)
    if isinstance(args, int):
        return args
    pace = _pace()
    if isinstance(pace, str):
        err("usage", pace)
        return 2
    return show(pace, as_json=args.json)


def _pace() -> PaceConfig | str:
    from zirv_dash.config.context_policy import pace_config
    from zirv_dash.config.errors import ConfigError
    from zirv_dash.config.layers import load_settings

    try:
        return pace_config(load_settings())
    except ConfigError as exc:
        return str(exc)


def show(pace: PaceConfig, *, as_json: bool, now: float | None = None) -> int:
    from zirv_dash.context import limits, usage

    moment = time.time() if now is None else now
    problems: list[str] = []
    windows = usage.read_windows(usage.DEFAULT_VENDORS, pace, now=moment, problems=problems)
    breakers: dict[str, BreakerRecord | None] = {}
    for vendor in usage.DEFAULT_VENDORS:
        try:
            breakers[vendor] = limits.read_breaker(vendor)
        except (ValueError, OSError):
            breakers[vendor] = None  # already named in `problems` by read_windows
    problems = list(dict.fromkeys(problems))
    if as_json:
        print(json.dumps(to_json(windows, breakers, problems, moment), sort_keys=True))
    else:
        sys.stdout.write("".join(line + "\n" for line in text_lines(windows, breakers, moment)))
    for problem in problems:
        err("usage", problem)
    return 0


def to_json(
    windows: list[UsageWindow],
    breakers: dict[str, BreakerRecord | None],
    problems: list[str],
    now: float,
) -> dict[str, object]:
    vendors: dict[str, dict[str, object]] = {}
    for window in windows:
        vendors.setdefault(window.vendor, {})[window.window] = window.to_json(now)
    for vendor, record in breakers.items():
        vendors.setdefault(vendor, {})["breaker"] = (
            None
            if record is None
            else {
                "active": now < record.resets_at,
                "harness": record.harness,
                "tripped_at": record.tripped_at,
                "resets_at": record.resets_at,
                "resets_stated": record.resets_stated,
                "window": record.window,
                "text": record.text,
            }
        )
    return {"read_at": now, "vendors": vendors, "problems": problems}


def age_text(secs: float | None) -> str:
    """`textfmt.age_text`, or `–` for an age no reading has."""
    return DASH if secs is None else _age(secs)


def when_text(moment: float, now: float) -> str:
    """`14:30` today, `Dec 12 09:00` another day (local time)."""
    here, then = time.localtime(now), time.localtime(moment)
    same_day = (here.tm_year, here.tm_yday) == (then.tm_year, then.tm_yday)
    return time.strftime("%H:%M" if same_day else "%b %d %H:%M", then)


def window_line(window: UsageWindow, now: float) -> str:
    from zirv_dash.context.window import WINDOW_LABELS

    label = WINDOW_LABELS.get(window.window, window.window)
    head = f"{window.vendor:<10} {label}"
    if window.percent is None:
        return f"{head}  {DASH:>5}  {window.detail}"
    resets = DASH
    if window.resets_at is not None:
        resets = f"{when_text(window.resets_at, now)} (in {age_text(window.resets_at - now)})"
    return (
        f"{head}  {window.percent:>4.0f}%  resets {resets:<24} {window.source:<9}"
        f" {age_text(window.age(now))} ago  {window.detail}"
    )


def breaker_line(vendor: str, record: BreakerRecord | None, now: float) -> str:
    if record is None:
        return f"breaker {vendor}: clear"
    if now >= record.resets_at:
        return f"breaker {vendor}: clear (the trip of {when_text(record.tripped_at, now)} expired)"
    until = when_text(record.resets_at, now)
    if not record.resets_stated:
        until += " (no reset stated: held 5h)"
    return (
        f"breaker {vendor}: tripped {when_text(record.tripped_at, now)} by {record.harness},"
        f" counts as 100% until {until}: {record.text}"
    )


def text_lines(
    windows: list[UsageWindow], breakers: dict[str, BreakerRecord | None], now: float
) -> list[str]:
    lines = [window_line(window, now) for window in windows]
    lines.extend(breaker_line(vendor, record, now) for vendor, record in breakers.items())
    return lines
