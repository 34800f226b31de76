"""Operators on SQLite databases: tables loaded and exported, window-function reports, delta feeds merged,
indexes planned, versioned migrations."""
