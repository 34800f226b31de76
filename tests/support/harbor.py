"""Harbor itself (in .venv-harbor, made by scripts/setup-tests.sh): our output checked by its code."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support.tasks import REPO

HARBOR_PYTHON = REPO / ".venv-harbor" / "bin" / "python"


def harbor_python() -> Path:
    """The interpreter of Harbor's venv; outside CI a missing one skips the test, on CI it fails it."""
    if not HARBOR_PYTHON.is_file():
        message = f"{HARBOR_PYTHON} is missing: scripts/setup-tests.sh installs Harbor (needs Python >= 3.12)"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return HARBOR_PYTHON


def harbor_validates_trajectory(path: Path) -> str:
    """Harbor's own ATIF validator on a trajectory.json; returns its verdict, fails the test on a rejection."""
    result = subprocess.run(
        [str(harbor_python()), "-m", "harbor.utils.trajectory_validator", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, f"Harbor rejects {path}: {result.stdout}{result.stderr}"
    return result.stdout.strip()
