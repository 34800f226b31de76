"""What the SQLite operators ship into a task: scripts and tests as real source (see `shipping.py`)."""
