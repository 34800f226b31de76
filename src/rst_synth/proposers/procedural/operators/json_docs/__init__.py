"""Operators on JSON documents: key inventories, counts and summaries, merge patches, schema checks."""
