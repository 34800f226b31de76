"""rst-synth: Recursive Synthetic Terminal Tasks."""

__version__ = "0.1.0"
