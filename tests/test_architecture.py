"""The layers of docs/architecture.md hold in the code, and the picture there is the code's."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from types import ModuleType

from tests.support.tasks import REPO

SCRIPT = REPO / "scripts" / "architecture.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("architecture", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_picture_is_the_codes_and_every_arrow_points_down() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_an_arrow_up_or_sideways_is_a_violation() -> None:
    architecture = _script()
    stack = [["cli"], ["engine", "report"], ["task"]]
    assert architecture.violations({"cli": {"engine"}, "engine": {"task"}, "report": set(), "task": set()}, stack) == []
    broken = architecture.violations(
        {"cli": set(), "engine": {"report"}, "report": set(), "task": {"cli"}, "stray": set()}, stack
    )
    assert broken == [
        "stray is in no layer of the contract",
        "engine imports report, a part of its own layer",
        "task imports cli, a part of a higher layer",
    ]


def test_the_picture_lists_every_part_of_the_code_under_its_layer() -> None:
    architecture = _script()
    edges, stack = architecture.imports(), architecture.layers()
    drawn = architecture.picture(edges, stack)
    assert {part for layer in stack for part in layer} == set(edges)  # no part left out of the contract
    assert drawn.splitlines()[0].split()[:2] == ["1", "cli"] and "harness     ─> sandbox task" in drawn
