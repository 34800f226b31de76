"""Operators on compiled C programs: install targets, build variants, coverage, a shared library and its ABI, a
planted defect."""
