"""`zirv ctx send` and `zirv chat` read a plain command line without argparse,
from the same flag declaration their argparse parser is built from (`flags`);
whatever that fast reading accepts, argparse must read the same way (it parses
everything else, and words every refusal)."""

from __future__ import annotations

import contextlib
import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zirv_dash.cli import ctx_mail as ctx_mail_cli
from zirv_dash.cli.ctx_common import parse_args
from zirv_dash.cli.flags import plain_value, read_plain

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
    if read_plain(ctx_mail_cli.SEND, argv) is None:
        return  # argparse's to read
    args = ctx_mail_cli.send_args(argv)
    assert not isinstance(args, int)  # a plain line has a message and one target at most
    assert _argparse(argv) == (args.message, args.to_session, args.all)


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
    assert read_plain(ctx_mail_cli.SEND, argv) is not None
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
        ["--all"],  # no message (required): argparse says so
        ["-m", "hi", "--all", "--to-session", "ab"],  # both of one exclusive group
    ],
)
def test_anything_unusual_is_argparse_s_to_read(argv: list[str]) -> None:
    assert read_plain(ctx_mail_cli.SEND, argv) is None


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

    if read_plain(chat.CHAT, argv) is None:
        return  # argparse's to read
    parsed = chat.chat_parser().parse_args(argv)  # a plain line never exits
    assert _chat_fields(chat.parse_args(argv)) == _chat_fields(parsed)


def test_a_plain_chat_line_needs_no_argparse_and_others_do() -> None:
    from zirv_dash.cli import chat

    assert read_plain(chat.CHAT, ["--agent", "demo"]) is not None
    for unusual in (["--ag", "demo"], ["--runtime", "native"], ["--pane", "shell"], ["-h"]):
        assert read_plain(chat.CHAT, unusual) is None
    assert _chat_fields(chat.parse_args(["--pane", "shell:hi", "--agent=demo"])) == (
        "demo", None, False, False, "wrapped", False, ["shell:hi"],
    )  # fmt: skip


def test_each_parser_is_built_from_its_declaration_flag_for_flag() -> None:
    from zirv_dash.cli import chat

    verbs = [
        (chat.CHAT, chat.chat_parser()),
        (ctx_mail_cli.SEND, ctx_mail_cli.send_parser()),
    ]
    for verb, parser in verbs:
        declared = [(f.names, f.dest, f.help) for f in verb.flags]
        built = [
            (tuple(a.option_strings) or (a.dest,), a.dest, a.help)
            for a in parser._actions
            if a.dest != "help"
        ]
        assert built == declared, verb.prog
