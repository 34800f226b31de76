"""The helper the git operators' tests share: git run in the step's repository, its output as text.
REPO is the step's parameter: `shipping.render` sets it."""

from __future__ import annotations

import subprocess

REPO = "/app/repo"


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", REPO, *args], check=True, capture_output=True, text=True).stdout
