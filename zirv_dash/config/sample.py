"""The commented `.zirv/ctx.toml` that `zirv init` writes, listed from the settings table.

Every key, default and variable comes from the model's generated copy
(`config/table.py`), split by whether a repository may set it, so the sample
can never show a key, default or variable the model does not have.
"""

from __future__ import annotations

from zirv_dash.config import table
from zirv_dash.config.policy import repo_settable

_HEAD = """\
# zirv configuration for this repository.
#
# Layers, lowest first: ~/.zirv/ctx.toml (operator) -> this file (repository)
# -> ZIRV_CTX_* environment variables -> command-line flags.
#
# A repository may not set dashboard limits, the default agent, handover
# models or whether (and how much) mail is kept and delivered: put those in
# ~/.zirv/ctx.toml. What a repository may set:
#
"""
_OPERATOR = """\
#
# Operator-only keys (~/.zirv/ctx.toml; `zirv ctx config set KEY VALUE` writes
# one there after checking it, `zirv ctx config list` shows what applies):
#
"""
_AGENT_EXAMPLE = '"claude"'
"""The default agent is the first harness installed; the sample shows one name."""


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return str(value)


def _line(name: str, value: str, var: str) -> str:
    return f"# {f'{name} = {value}':<28} # {var}\n"


def _sections(repo: bool) -> str:
    """The `[section]` blocks of the keys a repository may (or may not) set."""
    out = []
    for section, fields in table.SECTIONS.items():
        lines = [
            _line(name, _toml(default), table.ENV[section][name])
            for name, (_, default, _, _) in fields.items()
            if repo_settable(section, name) is repo
        ]
        if lines:
            out.append(f"# [{section}]\n" + "".join(lines))
    return "".join(out) if repo else "#\n".join(out)


def sample_ctx_toml() -> str:
    """The whole commented file."""
    agent = "".join(_line(n, _AGENT_EXAMPLE, var) for n, var in table.TOP_ENV.items())
    return _HEAD + _sections(repo=True) + _OPERATOR + agent + _sections(repo=False)


SAMPLE_CTX_TOML = sample_ctx_toml()
