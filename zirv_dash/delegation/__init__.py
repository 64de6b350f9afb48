"""Delegations: what a delegated run left behind."""
