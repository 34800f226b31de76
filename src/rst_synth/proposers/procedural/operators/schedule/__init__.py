"""Operators on cron schedules: next runs, overlaps with another schedule, backup retention."""
