"""Code the packaging operators ship into tasks."""
