"""The configuration error: below the layers and the model's validation, which both raise it."""

from __future__ import annotations


class ConfigError(Exception):
    """A configuration problem the user can fix; the message names file and key."""
