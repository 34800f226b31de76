"""Operators on packages: Debian packages, reproducible wheels and their audit, plugin distributions, installed
distributions against their RECORD."""
