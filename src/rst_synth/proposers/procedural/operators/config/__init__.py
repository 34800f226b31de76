"""Operators on configuration documents (TOML, INI): conversion to JSON, validators, layered merges, schema
migrations."""
