"""What the shipped git tests' unit tests share: the identity a step stamps, and commands run to their output."""

from __future__ import annotations

import subprocess
from pathlib import Path

WHO, EMAIL, DATE, EPOCH = "Release Bot", "release-bot@example.com", "2024-03-01T09:30:00+00:00", 1709285400


def run(*command: str | Path, env: dict[str, str] | None = None) -> str:
    return subprocess.run([str(c) for c in command], check=True, capture_output=True, text=True, env=env).stdout
