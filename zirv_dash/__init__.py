__version__ = "0.1.0"
PROTOCOL_VERSION = 1
"""The runtime protocol's version (`zirv_dash.session.protocol`), here so that
`zirv --version` names it without importing the protocol's types."""
