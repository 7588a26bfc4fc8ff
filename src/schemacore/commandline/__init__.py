"""The machinery behind ``schemacore validate``: reading documents (JSON, JSON Lines,
YAML, TOML), checking them (in this process or in worker processes), limits as
flags, and the progress line. ``schemacore.cli`` is the entry point."""
