"""Tests of ``schemacore validate`` on real data: files, JSON Lines, YAML, TOML, jobs."""
