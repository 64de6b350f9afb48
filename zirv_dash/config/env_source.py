"""The environment source of the settings models: list values as `:`-separated text.

pydantic-settings reads a list-valued variable (`ZIRV_CTX_DASH_WORKDIR_ROOTS`,
`ZIRV_CTX_FALLBACK_ORDER`) only as JSON, so the natural `PATH`-style spelling
`/some/dir` ends in a `SettingsError` traceback. Here a value that starts with
`[` (or `{`) is JSON (the way to name a path that itself holds a `:`); any other
value is a `:`-separated list, empty items dropped (`""` is the empty list, as an
empty `PATH` entry means nothing). What is not valid JSON is an `EnvListError`
naming the variable, which `config.validation` turns into a one-line error.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic.fields import FieldInfo
from pydantic_settings import EnvSettingsSource


class EnvListError(ValueError):
    """A list-valued environment variable that is neither JSON nor a `:` list."""


class ListEnvSource(EnvSettingsSource):
    """`EnvSettingsSource` with `:`-separated lists (and JSON arrays)."""

    def decode_complex_value(self, field_name: str, field: FieldInfo, value: Any) -> Any:
        if not isinstance(value, str):
            return super().decode_complex_value(field_name, field, value)
        if not value.lstrip().startswith(("[", "{")):
            return [item for item in value.split(":") if item]
        try:
            return json.loads(value)
        except ValueError as exc:
            var = f"{self.env_prefix}{field_name}".upper()
            raise EnvListError(
                f"{var}: not valid JSON ({exc}); give a `:`-separated list "
                f'(`/a:/b`) or a JSON array (`["/a", "/b"]`) (got {value!r})'
            ) from exc
