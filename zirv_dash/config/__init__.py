"""Configuration: the settings model, its layers and policy, and the keys of `zirv ctx config`."""
