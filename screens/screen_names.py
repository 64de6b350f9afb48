"""Names under which the app installs the screens it keeps between openings."""

HELP_SCREEN = "zirv-help"
"""The help overlay: built once (laying out every binding is most of its cost)."""
