"""`zirv ctx send` reads a plain command line without argparse; whatever that
fast reading accepts, argparse must read the same way (it parses everything
else, and words every refusal)."""

from __future__ import annotations

import contextlib
import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zirv_dash.cli import ctx_mail as ctx_mail_cli
from zirv_dash.cli.ctx_common import parse_args
from zirv_dash.cli.plain_args import plain_options, plain_value

_WORDS = st.sampled_from(
    [
        "--message", "-m", "--to-session", "--all", "--message=hi", "--to-session=ab12",
        "--message=", "--message=-x", "--mess", "--al", "-mhi", "-m=hi", "--all=1", "-h",
        "--help", "--", "-", "-x", "-5", "--x", "hi", "a b", "- a", "", "ab12", "x=y", "é",
    ]
)  # fmt: skip


def _argparse(argv: list[str]) -> tuple[str, str | None, bool] | int:
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        parsed = parse_args(ctx_mail_cli.send_parser(), argv)
    if isinstance(parsed, int):
        return parsed
    return parsed.message, parsed.to_session, parsed.all


@given(st.lists(_WORDS, max_size=6))
def test_a_line_read_without_argparse_reads_as_argparse_reads_it(argv: list[str]) -> None:
    if plain_options(argv, *_TABLES) is None:
        return  # argparse's to read
    args = ctx_mail_cli.send_args(argv)  # no message, or both targets: argparse's again
    if not isinstance(args, int):
        assert _argparse(argv) == (args.message, args.to_session, args.all)


_TABLES = (ctx_mail_cli._SEND_VALUED, ctx_mail_cli._SEND_FLAGS)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--message", "hi"], ("hi", None, False)),
        (["-m", "-", "--all"], ("-", None, True)),
        (["--to-session=ab12", "--message=a=b"], ("a=b", "ab12", False)),
    ],
)
def test_the_plain_lines_agents_send_skip_argparse(
    argv: list[str], expected: tuple[str, str | None, bool]
) -> None:
    assert plain_options(argv, *_TABLES) is not None
    args = ctx_mail_cli.send_args(argv)
    assert not isinstance(args, int)
    assert (args.message, args.to_session, args.all) == expected == _argparse(argv)


@pytest.mark.parametrize(
    "argv",
    [
        ["--mess", "hi"],  # an abbreviation
        ["-mhi"],
        ["--message", "-x"],  # an option, a number or the end of options: argparse decides
        ["--message", ""],
        ["--message", "a", "--message", "b"],  # a repeat: argparse keeps the last
        ["--message"],
        ["hi"],
        ["--help"],
    ],
)
def test_anything_unusual_is_argparse_s_to_read(argv: list[str]) -> None:
    assert plain_options(argv, *_TABLES) is None


def test_both_targets_or_no_message_are_refused_by_argparse_in_its_words(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert ctx_mail_cli.send_args(["-m", "hi", "--all", "--to-session", "ab"]) == 2
    assert "argument --to-session: not allowed with argument --all" in capsys.readouterr().err
    assert ctx_mail_cli.send_args(["--all"]) == 2
    assert "the following arguments are required: --message/-m" in capsys.readouterr().err


def test_a_plain_value_is_one_argparse_never_takes_for_an_option() -> None:
    assert plain_value("-") and plain_value("hi") and plain_value("a -b")
    assert not plain_value("") and not plain_value("-x") and not plain_value("--")


_CHAT_WORDS = st.sampled_from(
    [
        "--agent", "demo", "--model", "opus", "--simple", "--allow-nested", "--no-session",
        "--agent=claude", "--ag", "--runtime", "native", "--pane", "shell", "-", "-x", "",
        "--", "a b", "--model=", "--simple=1",
    ]
)  # fmt: skip


def _chat_fields(args: object) -> tuple[object, ...]:
    names = ("agent", "model", "simple", "allow_nested", "runtime", "no_session", "pane")
    return tuple(getattr(args, name) for name in names)


@given(st.lists(_CHAT_WORDS, max_size=6))
def test_a_chat_line_read_without_argparse_reads_as_argparse_reads_it(argv: list[str]) -> None:
    from zirv_dash.cli import chat

    if plain_options(argv, chat._CHAT_VALUED, chat._CHAT_FLAGS) is None:
        return  # argparse's to read
    parsed = chat.chat_parser().parse_args(argv)  # a plain line never exits
    assert _chat_fields(chat.parse_args(argv)) == _chat_fields(parsed)


def test_a_plain_chat_line_needs_no_argparse_and_others_do() -> None:
    from zirv_dash.cli import chat

    assert plain_options(["--agent", "demo"], chat._CHAT_VALUED, chat._CHAT_FLAGS) is not None
    for unusual in (["--ag", "demo"], ["--runtime", "native"], ["--pane", "shell"], ["-h"]):
        assert plain_options(unusual, chat._CHAT_VALUED, chat._CHAT_FLAGS) is None
    assert _chat_fields(chat.parse_args(["--pane", "shell:hi", "--agent=demo"])) == (
        "demo", None, False, False, "wrapped", False, ["shell:hi"],
    )  # fmt: skip
