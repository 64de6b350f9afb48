"""A verb's flags, declared once: its argparse parser is built from the declaration,
and a plain command line is read from the same declaration without argparse.

Agents run `zirv ctx send --message TEXT` many times a minute, and argparse
(with gettext, and locale for the first translated string) is a large part of
what that costs. `read_plain` takes only argument lists argparse reads the same
way: options that store a value (each followed by a plain value, or written
`--name=value`) and `store_true` flags, each at most once, every required one
given and at most one of a mutually exclusive group. Anything else (help, an
abbreviation, `-mTEXT`, a value that starts with `-`, an empty value, a repeat,
a positional, a choice or a repeatable option) gives None, and the caller hands
the list to the parser `build_parser` makes, which parses it or words the error
as it always has.
"""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` (with contextlib) is not imported to send a note
if TYPE_CHECKING:
    import argparse
    from typing import Any, TypeVar

    P = TypeVar("P", bound=argparse.ArgumentParser)

STORE, STORE_TRUE, APPEND, POSITIONAL = "store", "store_true", "append", "positional"


class Flag:
    """One argument of a verb: what `ArgumentParser.add_argument` is given."""

    __slots__ = (
        "names", "dest", "action", "help", "metavar", "required", "choices", "default", "group",
    )  # fmt: skip

    def __init__(
        self,
        *names: str,
        action: str = STORE,
        help: str = "",
        metavar: str | None = None,
        required: bool = False,
        choices: tuple[str, ...] | None = None,
        default: object = None,
        group: str | None = None,
    ) -> None:
        self.names = names
        self.dest = names[0].lstrip("-").replace("-", "_")
        self.action = action
        self.help = help
        self.metavar = metavar
        self.required = required
        self.choices = choices
        self.default = default
        self.group = group
        """Flags of one group are mutually exclusive."""

    def initial(self) -> object:
        """What the namespace holds when the flag is not given (argparse's default)."""
        if self.action == STORE_TRUE:
            return False
        if self.action == APPEND:
            return list(self.default or [])  # type: ignore[call-overload]
        return self.default

    def add_to(self, parser: argparse.ArgumentParser | argparse._MutuallyExclusiveGroup) -> None:
        options: dict[str, Any] = {"help": self.help}
        if self.action == POSITIONAL:
            parser.add_argument(self.names[0], metavar=self.metavar, help=self.help)
            return
        if self.action == STORE_TRUE:
            parser.add_argument(*self.names, action="store_true", help=self.help)
            return
        options.update(metavar=self.metavar, choices=self.choices, default=self.initial())
        if self.action == APPEND:
            options["action"] = "append"
        if self.required:
            options["required"] = True
        parser.add_argument(*self.names, **options)


class Verb:
    """A verb's name and description and its flags, in the order `--help` lists them."""

    __slots__ = ("prog", "description", "flags")

    def __init__(self, prog: str, description: str, *flags: Flag) -> None:
        self.prog = prog
        self.description = description
        self.flags = flags


def build_parser(verb: Verb, parser_class: type[P]) -> P:
    """The verb's argparse parser (`parser_class`: argparse's own, or one that
    reports usage errors without exiting), one mutually exclusive group a `group`."""
    parser = parser_class(prog=verb.prog, description=verb.description)
    groups: dict[str, argparse._MutuallyExclusiveGroup] = {}
    for flag in verb.flags:
        if flag.group is None:
            flag.add_to(parser)
            continue
        if flag.group not in groups:
            groups[flag.group] = parser.add_mutually_exclusive_group()
        flag.add_to(groups[flag.group])
    return parser


def read_plain(verb: Verb, argv: list[str]) -> dict[str, Any] | None:
    """{dest: value} for every flag of `verb` when `argv` is a plain line (see
    the module's docstring) that argparse would accept; None otherwise."""
    valued: dict[str, Flag] = {}
    switches: dict[str, Flag] = {}
    for flag in verb.flags:
        if flag.action == STORE and flag.choices is None:
            valued.update(dict.fromkeys(flag.names, flag))
        elif flag.action == STORE_TRUE:
            switches.update(dict.fromkeys(flag.names, flag))
    found = _read_words(argv, valued, switches)
    if found is None:
        return None
    given = [flag for flag in verb.flags if flag.dest in found]
    if any(flag.required and flag.dest not in found for flag in verb.flags):
        return None
    groups = [flag.group for flag in given if flag.group is not None]
    if len(groups) != len(set(groups)):
        return None
    return {flag.dest: found.get(flag.dest, flag.initial()) for flag in verb.flags}


def _read_words(
    argv: list[str], valued: dict[str, Flag], switches: dict[str, Flag]
) -> dict[str, object] | None:
    found: dict[str, object] = {}
    index = 0
    while index < len(argv):
        word = argv[index]
        name, equals, inline = word.partition("=")
        value: object
        if word in switches:
            dest, value, index = switches[word].dest, True, index + 1
        elif word in valued and index + 1 < len(argv):
            dest, value, index = valued[word].dest, argv[index + 1], index + 2
        elif equals and name.startswith("--") and name in valued:
            dest, value, index = valued[name].dest, inline, index + 1
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
