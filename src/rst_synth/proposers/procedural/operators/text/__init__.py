"""Operators on prose and line-oriented text: line statistics and counts, record tools, distinctive terms,
contact indexes."""
