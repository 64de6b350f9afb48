"""A plain command line read without argparse.

Agents run `zirv ctx send --message TEXT` many times a minute, and argparse
(with gettext, and locale for the first translated string) is a large part of
what that costs. `plain_options` reads only argument lists argparse reads the
same way; anything else (help, an abbreviation, `-mTEXT`, a value that starts
with `-`, an empty value, a repeated option, an unknown word) gives None, and
the caller hands the list to argparse, which parses it or words the error as it
always has.
"""

from __future__ import annotations


def plain_options(
    argv: list[str], valued: dict[str, str], flags: dict[str, str]
) -> dict[str, str | bool] | None:
    """{dest: value} for `argv` made only of `valued` options (option string →
    dest) each followed by a plain value (or written `--name=value`) and
    `flags` (store_true options), each dest at most once; None otherwise."""
    found: dict[str, str | bool] = {}
    index = 0
    while index < len(argv):
        word = argv[index]
        name, equals, inline = word.partition("=")
        value: str | bool
        if word in flags:
            dest, value, index = flags[word], True, index + 1
        elif word in valued and index + 1 < len(argv):
            dest, value, index = valued[word], argv[index + 1], index + 2
        elif equals and name.startswith("--") and name in valued:
            dest, value, index = valued[name], inline, index + 1
        else:
            return None
        if dest in found or (isinstance(value, str) and not plain_value(value)):
            return None
        found[dest] = value
    return found


def plain_value(value: str) -> bool:
    """Whether argparse takes `value` after an option as that option's argument
    with nothing to decide: not empty, and either `-` or not starting with `-`
    (a word like `-x`, `-5` or `--` is an option, a number or the end of options
    depending on the parser)."""
    return value == "-" or (value != "" and not value.startswith("-"))
