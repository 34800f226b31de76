"""What the JSON document operators ship into a task: scripts and tests as real source (see `shipping.py`)."""
