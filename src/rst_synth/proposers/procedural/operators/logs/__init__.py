"""Operators on logs: access-log sessions and reports, HTTP status classes, JSON Lines event rollups."""
