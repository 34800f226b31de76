"""What the git operators ship into their tasks, as real source: see `procedural/shipping.py`."""
