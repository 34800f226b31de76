"""backup-retention-gfs: where it applies, the retention rules on hand-checked timestamps (ISO weeks across
a year end, several archives a day), a deterministic step that names its paths, its generated tests on its
own tool (and on one that counts calendar weeks from Sunday), and a child accepted against its parent."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.schedule.shipped import retention
from tests.proposers.local_step import LocalStep
from tests.proposers.procedural.operators.schedule.test_cron_next_runs import CRON_D, PARENT_SOLVE, artifact, discovery
from tests.support.operators import assert_accepted, extend_with, parent_task

OP = OPERATORS["backup-retention-gfs"]


def build(seed: int = 6) -> Step:
    art = artifact()
    return OP.step(art, StepContext(discovery=discovery(art), rng=random.Random(seed), tag="r3s2"))


def plan(names: list[str], *counts: int) -> list[str]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(retention, "PREFIX", "db")
        return retention.plan(names, *counts)


def test_it_applies_to_schedules_that_run_often_enough() -> None:
    assert OP.can_use(artifact(), discovery())
    monthly = artifact("0 3 1 * * /usr/local/bin/backup.sh\n", "/app/out/monthly.crontab")
    assert not OP.can_use(monthly, discovery(monthly))  # five archives in five months: nothing to retain
    scrub = artifact(
        "10 3 * * * root test -e /run/systemd/system || /sbin/e2scrub_all -A -r\n", "/etc/cron.d/e2scrub_all"
    )
    assert not OP.can_use(scrub, discovery(scrub))  # a daily job that makes no backup: no archives to retain
    notes = artifact("hello\n", "/app/notes.txt")
    assert not OP.can_use(notes, discovery(notes))
    done = artifact().model_copy(update={"path": "/app/bin/appdata_backup_retention"})
    assert not OP.can_use(artifact(), discovery(artifact(), done))


def test_retention_rules() -> None:
    names = [
        "db-20261230-0100.tar.gz",  # Wed, 2026-W53
        "db-20261231-2300.tar.gz",  # Thu, 2026-W53
        "db-20270101-0100.tar.gz",  # Fri, still 2026-W53
        "db-20270101-1300.tar.gz",
        "db-20270104-0100.tar.gz",  # Mon, 2027-W01
        "db-20270230-0100.tar.gz",  # no such day
        "notes.txt",
    ]
    assert plan(names, 2, 2, 2) == [
        "keep db-20270104-0100.tar.gz daily,weekly,monthly",
        "keep db-20270101-1300.tar.gz daily,weekly",
        "delete db-20270101-0100.tar.gz",
        "keep db-20261231-2300.tar.gz monthly",
        "delete db-20261230-0100.tar.gz",
    ]
    assert plan(names, 0, 0, 0) == [f"delete {n}" for n in sorted(names[:5], reverse=True)]


def test_build_is_deterministic_and_names_every_path() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    paths = set(re.findall(r"'(/app/[^']+)'", step.tests)) | {a.path for a in step.produces}
    assert paths == {
        "/app/bin/appdata_backup_retention",
        "/app/incoming/r3s2/archives",
        "/app/retention/appdata_backup_plan.txt",
    }
    assert all(f"`{p}`" in step.instruction for p in paths)
    names = eval(re.search(r"ORIGINAL = (\(.*?\), )?(\[.*?\])\n", step.tests).group(2))  # type: ignore[union-attr]
    assert 500 < len(names) < 720 and "appdata-backup-20260105-0015.tar.gz" in names


def test_generated_tests_pass_on_the_tool_and_fail_on_sunday_weeks(tmp_path: Path) -> None:
    local = LocalStep(build(), tmp_path)
    local.plant()
    local.solve()
    assert len(local.run_tests(tmp_path / "t")) == 4
    tool = local.path("/app/bin/appdata_backup_retention")
    source = tool.read_text()
    tool.write_text(source.replace("lambda when: when.isocalendar()[:2]", 'lambda when: when.strftime("%Y-%U")'))
    assert tool.read_text() != source
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "wrong", only="fresh")


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    proposal, report = extend_with("backup-retention-gfs", parent_task(tmp_path, PARENT_SOLVE))
    assert_accepted(proposal, report, "backup-retention-gfs")


def test_cron_d_fixture_is_the_seed_schedule() -> None:
    assert "15 */6 * * * root" in CRON_D
