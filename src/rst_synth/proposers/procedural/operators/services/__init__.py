"""Operators on services the workflow leaves running: an HTTP service over a result, a watchdog, a key-value
client."""
