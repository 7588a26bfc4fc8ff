"""Tests of schemacore.compat, python-jsonschema's protocol."""
