"""`rst extend` end to end: distinct children, saved with lineage and measured figures."""

from __future__ import annotations

import json

import pytest

from rst_synth.task import Task
from tests.support.cli import rst
from tests.support.tasks import SEEDS

pytestmark = pytest.mark.docker


def test_extend_writes_distinct_validated_children(tmp_path) -> None:
    out = tmp_path / "children"
    result = rst("extend", str(SEEDS / "access-log-report"), "--out", str(out), "-n", "2", "--seed", "3")
    assert result.returncode == 0, result.stdout + result.stderr
    children = sorted(out.iterdir())
    assert len(children) == 2
    for child_dir in children:
        child = Task.load(child_dir)
        lineage = child.config.metadata.lineage
        assert lineage.parent == "rst-seeds/access-log-report" and lineage.round == 1
        metrics = child.config.metadata.metrics
        assert metrics.solution_lines > 12 and metrics.executed_commands > 0
        assert child.config.metadata.difficulty in ("easy", "medium", "hard")
    # The saved lineage points back at the parent, so a plain `rst validate` runs the parent check.
    check = rst("validate", "--json", *map(str, children))
    assert check.returncode == 0, check.stdout + check.stderr
    assert all({c["check"]: c["verdict"] for c in r["checks"]}["parent"] == "pass" for r in json.loads(check.stdout))
