"""cron-overlap-report: where it applies, the overlap rules on a hand-checked week, a deterministic step that
names its paths, its generated tests on its own tool (and on one that counts touching runs), and a child
accepted against its parent."""

from __future__ import annotations

import datetime
import random
import re
from pathlib import Path
from typing import Any

import pytest

from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.schedule.shipped import overlap_report
from tests.proposers.local_step import LocalStep
from tests.proposers.procedural.operators.schedule.test_cron_next_runs import CRON_D, PARENT_SOLVE, artifact, discovery
from tests.support.operators import assert_accepted, extend_with, parent_task

OP = OPERATORS["cron-overlap-report"]


def build(seed: int = 2) -> Step:
    art = artifact()
    return OP.step(art, StepContext(discovery=discovery(art), rng=random.Random(seed), tag="r2s2"))


def reference() -> dict[str, Any]:
    return vars(overlap_report)


def test_it_applies_to_cron_schedules() -> None:
    assert OP.can_use(artifact(), discovery())
    assert OP.final
    notes = artifact("hello\n", "/app/notes.txt")
    assert not OP.can_use(notes, discovery(notes))


def test_overlap_rules() -> None:
    ref = reference()
    backup = "# b\n15 */6 * * * root /bin/backup\n"
    other = "0 6 * * * /bin/report\n10 0 * * * /bin/dump\n"
    durations = ref["durations_of"]("50 /bin/backup\n15 /bin/report\n# x\n95 /bin/dump\n")
    start, end = datetime.datetime(2026, 3, 2), datetime.datetime(2026, 3, 2, 12)
    lines = ref["overlaps"]([("/etc/cron.d/b", backup), ("/x/m.cron", other)], durations, start, end)
    # The backup's 00:15-01:05 lies inside the dump's 00:10-01:45; the report (06:00-06:15) ends as it starts.
    assert lines == ["2026-03-02T00:10 /x/m.cron:2 2026-03-02T00:15 /etc/cron.d/b:2 50"]
    touching = ref["overlaps"]([("/x/t", "0 * * * * /bin/t\n")], {"/bin/t": 60}, start, end)
    assert touching == []  # each run ends at the minute the next starts
    long = ref["overlaps"]([("/x/t", "0 * * * * /bin/t\n")], {"/bin/t": 90}, start, start + datetime.timedelta(hours=3))
    assert long == [
        "2026-03-02T00:00 /x/t:1 2026-03-02T01:00 /x/t:1 30",
        "2026-03-02T01:00 /x/t:1 2026-03-02T02:00 /x/t:1 30",
    ]
    with pytest.raises(ref["MissingDuration"]):
        ref["overlaps"]([("/x/t", "0 * * * * /bin/u\n")], {"/bin/t": 5}, start, end)


def test_build_is_deterministic_and_names_every_path() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    paths = set(re.findall(r"'(/(?:app|etc)/[^']+)'", step.tests)) | {a.path for a in step.produces}
    assert len(paths) == 5 and all(f"`{p}`" in step.instruction for p in paths), paths


def test_generated_tests_pass_on_the_tool_and_fail_on_touching_runs(tmp_path: Path) -> None:
    local = LocalStep(build(), tmp_path, folders=("/app", "/etc/cron.d"))
    local.put("/etc/cron.d/appdata-backup", CRON_D)
    local.plant()
    local.solve()
    assert len(local.run_tests(tmp_path / "t")) == 3
    assert local.path("/app/schedule/appdata_backup_overlaps.txt").read_text().strip()
    tool = local.path("/app/bin/appdata_backup_overlaps")
    source = tool.read_text()
    tool.write_text(source.replace("            if other >= finish:", "            if other > finish:"))
    assert tool.read_text() != source
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "wrong", only="fresh")


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    proposal, report = extend_with("cron-overlap-report", parent_task(tmp_path, PARENT_SOLVE))
    assert_accepted(proposal, report, "cron-overlap-report")


def test_once_per_lineage() -> None:
    assert OP.once  # its tool is the same program whatever the input: a second step would be a copy
