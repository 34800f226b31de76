"""Helpers shared by the tests: task writers, the real engine, fakes, the scripted model server."""
