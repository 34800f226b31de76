"""The `rst` command line."""
