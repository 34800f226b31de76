"""Operators on files as files: manifests, checksum lists, bundles, a permissions policy."""
