"""What the schedule operators ship into their tasks, as real source: see `procedural/shipping.py`."""
