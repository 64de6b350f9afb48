"""`zirv ctx config get|set|unset|add|remove|list|path`: the operator layer from a shell.

Edits `~/.zirv/ctx.toml` (the operator's own file, never the repository's). A
key is checked against the settings models (`zirv_dash.cli.config_keys`), and a value
by the model's own validation, before anything is written; other keys and
sections are kept, and so are comments, order and layout: the text is edited
in place (`zirv_dash.cli.config_edit`, with tomlkit), never parsed and dumped
anew. The file is replaced atomically (temp file, fsync, rename) with mode
0600, and never written through a symlink (a dotfiles link would be replaced by
a plain file).

Exit codes: 0 done, 1 refused (the message says why), 2 usage.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import shlex
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

from pydantic import ValidationError

from zirv_dash import paths, safeio
from zirv_dash.cli import config_edit
from zirv_dash.cli.config_keys import Key, Refused, parse_key, render
from zirv_dash.config import layers as config

PROG = "zirv ctx config"


# --- the operator file -------------------------------------------------------------


def operator_file() -> Path:
    return paths.operator_dir() / "ctx.toml"


def _read_operator(path: Path) -> tuple[dict[str, Any], str]:
    """(document, text) of the operator file ({} and "" when it is absent)."""
    try:
        st = path.lstat()
    except FileNotFoundError:
        return {}, ""
    except OSError as exc:
        raise Refused(f"{path}: cannot inspect ({exc.strerror or exc})") from exc
    if stat.S_ISLNK(st.st_mode):
        target = os.path.realpath(path)
        raise Refused(
            f"{path} is a symlink (to {target}); zirv does not write through it. "
            "Edit the file it points to yourself; nothing was changed"
        )
    try:
        data = safeio.read_bounded(path, config.CONFIG_FILE_CAP)
        text = safeio.decode_utf8(data or b"", path)
        doc = safeio.parse_toml(text, path)
        config.check_shape(doc, path)
    except (safeio.UnsafeFile, safeio.BadContent, config.ConfigError) as exc:
        raise Refused(f"{exc}; fix the file first (nothing was changed)") from exc
    return doc, text


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Serialise edits, so two `set`s at once never lose one of them."""
    if not path.parent.exists():
        paths.ensure_private_dir(path.parent)
    lock = path.parent / f".{path.name}.lock"
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(lock, flags, 0o600)
    except OSError as exc:
        raise Refused(f"{lock}: cannot open the edit lock ({exc.strerror or exc})") from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _write_atomic(path: Path, data: str) -> None:
    """The one atomic writer (temp + fsync + rename, 0600 from the start), then
    the directory is synced so the rename survives a crash."""
    if path.is_symlink():  # appeared since we read it: do not replace it
        raise Refused(f"{path} became a symlink while being edited; nothing was changed")
    paths.atomic_write(path, data)
    dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def _check_section(doc: dict[str, Any], key: Key, path: Path) -> None:
    """The edited section must still load, so the file we write never breaks
    `load_settings` (another bad key there is named, to fix or unset)."""
    if len(key.parts) != 2:
        return
    section = key.parts[0]
    model = config.file_only(config.SECTION_MODELS[section])
    try:
        model(**doc.get(section, {}))
    except ValidationError as exc:
        err = exc.errors()[0]
        bad = ".".join([section, *(str(p) for p in err.get("loc", ()))])
        raise Refused(
            f"{path}: {bad}: {err.get('msg', 'invalid')} (got {err.get('input')!r}); "
            f"fix it with `zirv ctx config set {bad} <value>` or `zirv ctx config unset {bad}`"
        ) from exc


def edit(key: Key, change: str, text: str | None = None) -> object | None:
    """Apply `change` (set/unset/add/remove) to the operator file; the new value
    (None when unset). `config_edit.NotSet` (nothing written) for an unset of a
    key the file does not hold."""
    path = operator_file()
    with _locked(path):
        _, before = _read_operator(path)
        edited = config_edit.apply(before, key, change, text, str(path))
        try:
            # What is written must read back as the settings will read it.
            after = safeio.parse_toml(edited.text, path)
        except safeio.BadContent as exc:  # pragma: no cover - tomlkit writes TOML
            raise Refused(f"{exc}; nothing was changed") from exc
        _check_section(after, key, path)
        _write_atomic(path, edited.text)
    return edited.value


# --- reading -----------------------------------------------------------------------


def effective(key: Key, settings: config.Settings) -> object | None:
    if len(key.parts) == 1:
        top: object = getattr(settings, key.parts[0])
        return top
    if key.parts[0] == "handover":
        return _handover_model(key, settings)
    section, name = key.parts
    value: object = getattr(getattr(settings, section), name)
    return list(value) if isinstance(value, list) else value


def _handover_model(key: Key, settings: config.Settings) -> str | None:
    """The model a handover to this tier would use (an override, else the
    built-in ladder), or None when neither names one."""
    from zirv_dash.harnesses import catalogue

    _, agent, tier = key.parts
    try:
        return catalogue.resolve_model(agent, tier, settings).model
    except catalogue.ResolveError:
        return None


def source(key: Key, settings: config.Settings, repo: Path) -> str:
    """Which layer the effective value comes from."""
    if any(k.upper() == key.env for k in os.environ):
        return f"env {key.env}"
    for file in (repo / ".zirv" / "ctx.toml", operator_file()):
        if str(file) in settings.sources and _holds(file, key):
            return str(file)
    return "default"


def _holds(file: Path, key: Key) -> bool:
    try:
        data = safeio.read_toml(file, config.CONFIG_FILE_CAP) or {}
    except (safeio.UnsafeFile, safeio.BadContent, OSError):
        return False
    holder: Any = data
    for part in key.parts:
        if not isinstance(holder, dict) or part not in holder:
            return False
        holder = holder[part]
    return True


def _load() -> tuple[config.Settings, Path]:
    try:
        repo = paths.repo_root()
        return config.load_settings(repo), repo
    except FileNotFoundError as exc:
        raise Refused("the current directory no longer exists; cd somewhere and retry") from exc
    except config.ConfigError as exc:
        raise Refused(str(exc)) from exc


def all_set_keys(settings: config.Settings) -> list[Key]:
    keys = [parse_key(k) for k in config.all_keys()]
    for agent, tiers in sorted(settings.handover.items()):
        keys.extend(Key(("handover", agent, tier)) for tier in sorted(tiers))
    return keys


# --- commands ----------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _Usage(f"{self.prog}: {message}\n{self.format_usage().rstrip()}")


class _Usage(Exception):
    pass


def _parser() -> _Parser:
    parser = _Parser(
        prog=PROG,
        description=f"Read or edit {config.OPERATOR_FILE_SHOWN} (the operator layer).",
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub.add_parser("path", help="print the operator file's path")
    sub.add_parser("list", help="every key with its effective value and where it comes from")
    get = sub.add_parser("get", help="print a key's effective value")
    get.add_argument("key")
    setp = sub.add_parser("set", help="validate and write a value")
    setp.add_argument("key")
    setp.add_argument("value")
    unset = sub.add_parser("unset", help="remove a key from the operator file")
    unset.add_argument("key")
    for verb in ("add", "remove"):
        p = sub.add_parser(verb, help=f"{verb} one item of a list key (dash.workdir_roots)")
        p.add_argument("key")
        p.add_argument("value")
    return parser


def main(argv: list[str]) -> int:
    try:
        args = _parser().parse_args(argv)
    except _Usage as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    try:
        return _run(args)
    except Refused as exc:
        print(f"{PROG} {args.command}: {exc}", file=sys.stderr)
        return 1


def _run(args: argparse.Namespace) -> int:
    if args.command == "path":
        print(operator_file())
        return 0
    if args.command == "list":
        settings, repo = _load()
        for key in all_set_keys(settings):
            value = effective(key, settings)
            shown = "(unset)" if value is None else render(value)
            print(f"{key.text} = {shown}  # {source(key, settings, repo)}")
        return 0
    key = parse_key(args.key)
    if args.command == "get":
        settings, _ = _load()
        value = effective(key, settings)
        if value is None:
            raise Refused(f"{key.text} is not set")
        print(render(value))
        return 0
    _refuse_inside_an_agent(args)
    try:
        new = edit(key, args.command, getattr(args, "value", None))
    except config_edit.NotSet as exc:
        print(str(exc))  # the state asked for holds already: not a failure
        _warn_outranked(key)
        return 0
    path = operator_file()
    if new is None:
        print(f"{key.text} removed from {path}")
    else:
        print(f"{key.text} = {render(new)} in {path}")
    _warn_outranked(key)
    return 0


def _refuse_inside_an_agent(args: argparse.Namespace) -> None:
    """The operator's file widens what agents may do (workdir roots, pane cap,
    models): a pane's agent following a hint must ask the operator, not edit
    it itself. `ZIRV_ALLOW_NESTED=true` is the operator's own override (a shell
    pane of the dashboard)."""
    session = os.environ.get("ZIRV_CTX_SESSION")
    if not session or os.environ.get("ZIRV_ALLOW_NESTED", "").lower() == "true":
        return
    value = f" {shlex.quote(args.value)}" if getattr(args, "value", None) is not None else ""
    raise Refused(
        f"refusing to change the operator's settings from inside an agent session "
        f"(ZIRV_CTX_SESSION={session}); ask the operator to run "
        f"`zirv ctx config {args.command} {args.key}{value}` in their own terminal "
        "(or set ZIRV_ALLOW_NESTED=true); nothing was changed"
    )


def _warn_outranked(key: Key) -> None:
    """Say so when the environment or the repository layer will still win over
    what was just written."""
    if any(k.upper() == key.env for k in os.environ):
        print(
            f"{PROG}: note: {key.env} is set in this environment and outranks the file",
            file=sys.stderr,
        )
    try:
        repo_file = paths.repo_root() / ".zirv" / "ctx.toml"
    except FileNotFoundError:
        return
    if repo_file != operator_file() and _holds(repo_file, key):
        print(f"{PROG}: note: {repo_file} sets {key.text} and outranks it here", file=sys.stderr)
