"""Code the account operators ship into tasks, as real source: each module's constants are a step's parameters."""
