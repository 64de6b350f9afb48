"""`zirv setup status [--json]` and `zirv setup apply [--dry-run]`: zirv's hooks in the harnesses.

`apply` backs each file it changes up first (`<file>.zirv-backup-<time>`, 0600),
writes it atomically (through a symlink to the file it names), and changes
nothing on a second run. A malformed file is refused with its line and left
byte for byte as it was. Exit codes: 0 done, 1 a file was refused or could not
be written, 2 usage.
"""

from __future__ import annotations

import difflib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from zirv_dash import paths
from zirv_dash.cli.ctx_args import Parser
from zirv_dash.cli.ctx_common import parse_args
from zirv_dash.harnesses.settings_hooks import Plan, SetupError, plan, read_text, targets

PREFIX = "zirv setup"


def setup_main(argv: list[str]) -> int:
    parser = Parser(prog=PREFIX, description="zirv's Stop hook and usage tee in the harnesses.")
    sub = parser.add_subparsers(dest="action")
    status = sub.add_parser("status", help="what each harness's settings hold")
    status.add_argument("--json", action="store_true", help="machine-readable output")
    apply = sub.add_parser("apply", help="merge zirv's hooks in (backing each file up)")
    apply.add_argument("--dry-run", action="store_true", help="show the changes, write nothing")
    args = parse_args(parser, argv)
    if isinstance(args, int):
        return args
    if args.action is None:
        parser.print_help()
        return 2
    plans = [plan(t) for t in targets()]
    if args.action == "status":
        return _status(plans, args.json)
    return _apply(plans, args.dry_run)


def _describe(p: Plan) -> dict[str, Any]:
    return {
        "harness": p.target.harness,
        "path": str(p.target.path),
        "exists": p.exists,
        "stop_hook": p.stop_hook,
        "statusline": p.statusline,
        "would_change": p.after is not None,
        "problem": p.problem,
        "note": p.note,
    }


def _status(plans: list[Plan], as_json: bool) -> int:
    if as_json:
        print(json.dumps({"harnesses": [_describe(p) for p in plans]}, indent=2))
        return 1 if any(p.problem for p in plans) else 0
    for p in plans:
        if p.problem:
            print(f"{p.target.harness}: {p.problem}")
            continue
        if p.note:
            print(f"{p.target.harness}: {p.note}")
            continue
        hook = "installed" if p.stop_hook else "missing"
        line = f"{p.target.harness}: {p.target.path} · stop hook {hook}"
        if p.target.statusline:
            line += f" · statusline {p.statusline}"
        line += " · apply would change it" if p.after is not None else " · up to date"
        print(line)
    return 1 if any(p.problem for p in plans) else 0


def _apply(plans: list[Plan], dry_run: bool) -> int:
    failed = False
    for p in plans:
        if p.problem:
            print(f"{PREFIX}: {p.problem}", file=sys.stderr)
            failed = True
            continue
        if p.after is None:
            print(f"{p.target.harness}: {p.note or 'up to date; nothing to do'}")
            continue
        if dry_run:
            sys.stdout.writelines(_diff(p))
            continue
        problem = _write(p)
        if problem:
            print(f"{PREFIX}: {problem}", file=sys.stderr)
            failed = True
    return 1 if failed else 0


def _backup(real: Path, data: bytes) -> Path:
    """`<file>.zirv-backup-<time>` (0600), never replacing an earlier backup."""
    stamp = time.strftime("%Y%m%dT%H%M%S")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for n in range(1, 100):
        suffix = "" if n == 1 else f"-{n}"
        backup = real.with_name(f"{real.name}.zirv-backup-{stamp}{suffix}")
        try:
            fd = os.open(backup, flags, 0o600)
        except FileExistsError:
            continue
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        return backup
    raise OSError(f"no free backup name beside {real}")


def _diff(p: Plan) -> list[str]:
    before = (p.before or "").splitlines(keepends=True)
    after = (p.after or "").splitlines(keepends=True)
    name = str(p.target.path)
    return list(difflib.unified_diff(before, after, name if p.exists else "/dev/null", name))


def _write(p: Plan) -> str | None:
    """Back the file up, then write the merge; a problem text when either failed.
    The file is read again first: a harness that rewrote it since (Claude Code's
    `/config`) is not overwritten."""
    path = p.target.path
    real = path.resolve() if path.is_symlink() else path
    try:
        if read_text(path) != p.before:
            return f"{real}: changed while zirv setup ran; run it again (nothing written)"
    except SetupError as exc:
        return str(exc)
    try:
        if p.exists:
            backup = _backup(real, (p.before or "").encode("utf-8"))
            print(f"{p.target.harness}: backed up {real} to {backup.name}")
        mode = real.stat().st_mode & 0o777 if p.exists else 0o600
        # The harness's directory keeps its own permissions (not zirv's 0700).
        paths.atomic_write(real, p.after or "", mode=mode, private_dir=False)
    except OSError as exc:
        return f"{real}: cannot write ({exc.strerror or exc}); left as it was"
    via = f" (through the symlink {path})" if real != path else ""
    print(f"{p.target.harness}: merged zirv's hooks into {real}{via}")
    return None
