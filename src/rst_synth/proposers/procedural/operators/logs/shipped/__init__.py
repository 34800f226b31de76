"""What the log operators ship: real source rendered into steps (`shipping.render`)."""
