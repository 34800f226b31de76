"""The cron-next-runs operator: preconditions, the reference's answers on hand-checked cases, determinism,
its generated tests against its own tool (no Docker), and a child accepted against a parent."""

from __future__ import annotations

import datetime
import random
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from rst_synth.proposers.artifacts import Artifact, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, StepContext
from rst_synth.proposers.procedural.operators.schedule import crontab
from tests.support.operators import assert_accepted, extend_with, parent_task

CRON_D = (
    "# Back up /srv/appdata every six hours.\n"
    "SHELL=/bin/sh\n"
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n"
    "15 */6 * * * root /usr/local/bin/backup-appdata.sh >> /var/log/appdata-backup.log 2>&1\n"
    "30 2 * * 0 root /usr/local/bin/backup-appdata.sh --full >> /var/log/appdata-backup.log 2>&1\n"
)
CRONTAB = "MAILTO=ops\n\n# rotate\n*/10 8-18 * * 1-5 /usr/local/bin/rotate.sh\n0 0 1,15 * * /usr/local/bin/report.sh\n"
PARENT_SOLVE = f"mkdir -p /etc/cron.d\ncat > /etc/cron.d/appdata-backup <<'CRON'\n{CRON_D}CRON\n"
OP = OPERATORS["cron-next-runs"]


def artifact(text: str = CRON_D, path: str = "/etc/cron.d/appdata-backup") -> Artifact:
    kind, details, sample = classify(path, text.encode())
    return Artifact(path=path, kind=kind, size=len(text.encode()), details=details, sample=sample)


def discovery(*artifacts: Artifact, tools: tuple[str, ...] = ("python3",)) -> Discovery:
    return Discovery(workdir="/app", artifacts=list(artifacts) or [artifact()], tools=list(tools))


def runs(text: str, start: str, count: int, user_field: bool = False) -> list[str]:
    when = datetime.datetime.strptime(start, "%Y-%m-%dT%H:%M")
    result: list[str] = crontab.reference()["next_runs"](text, user_field, when, count)
    return result


def test_applies_on_cron_schedules_only() -> None:
    assert OP.can_use(artifact(), discovery())
    user_crontab = artifact(CRONTAB, "/app/out/jobs.crontab")
    assert OP.can_use(user_crontab, discovery(user_crontab))
    system = artifact("0 3 * * * /usr/local/bin/job.sh\n", "/etc/crontab")  # /etc/crontab needs the user field
    assert not OP.can_use(system, discovery(system))
    for text in (
        "hello world\nsecond line\n",
        "# only comments\nSHELL=/bin/sh\n",
        "@daily /usr/local/bin/job.sh\n",
        "0 3 * * mon /usr/local/bin/job.sh\n",
        "0 3 * jan * /usr/local/bin/job.sh\n",
        "61 3 * * * /usr/local/bin/job.sh\n",
        "0 0 30 2 * /usr/local/bin/never.sh\n",  # never fires: nothing to list
        "1 2 3 4 5 6\n7 8 9 10 1 12\n",  # a table of numbers, no command
    ):
        other = artifact(text, "/app/out/notes.txt")
        assert not OP.can_use(other, discovery(other)), text
    assert not OP.can_use(artifact(), discovery(tools=()))
    done = Artifact(path="/app/bin/appdata_backup_next_runs", kind=artifact().kind)
    assert not OP.can_use(artifact(), discovery(artifact(), done))  # the tool of that contract exists


def test_reference_on_hand_checked_cases() -> None:
    every15 = "*/15 * * * * /bin/job\n"
    assert runs(every15, "2026-03-01T10:07", 3) == ["2026-03-01T10:15 1", "2026-03-01T10:30 1", "2026-03-01T10:45 1"]
    assert runs(every15, "2026-03-01T10:15", 1) == ["2026-03-01T10:30 1"]  # strictly after START
    # April 2026: Fridays 3, 10, 17, 24; the 13th is a Monday -> either field matches.
    friday13 = ["2026-04-03T00:00 1", "2026-04-10T00:00 1", "2026-04-13T00:00 1", "2026-04-17T00:00 1"]
    assert runs("0 0 13 * 5 /bin/job\n", "2026-04-01T00:00", 4) == friday13
    assert runs("0 0 13 * * /bin/job\n", "2026-04-01T00:00", 2) == ["2026-04-13T00:00 1", "2026-05-13T00:00 1"]
    assert runs("0 18 * * 7 /bin/job\n", "2026-04-01T00:00", 2) == ["2026-04-05T18:00 1", "2026-04-12T18:00 1"]
    leap = "0 12 29 2 * /bin/job\n"
    assert runs(leap, "2027-01-10T00:00", 3) == ["2028-02-29T12:00 1", "2032-02-29T12:00 1"]  # 2036: past the window
    assert runs("0 0 30 2 * /bin/job\n", "2026-01-01T00:00", 5) == []
    both = "# two at noon\n0 12 * * * /bin/a\nX=1\n0 */12 * * * /bin/b\n"
    assert runs(both, "2026-06-30T11:59", 3) == ["2026-06-30T12:00 2", "2026-06-30T12:00 4", "2026-07-01T00:00 4"]
    assert runs("10-50/20 2-9/3 * * * root /bin/c\n", "2026-01-01T05:30", 3, True) == [
        "2026-01-01T05:50 1",
        "2026-01-01T08:10 1",
        "2026-01-01T08:30 1",
    ]
    ref = crontab.reference()
    for bad in ("*/0 * * * * /bin/x", "0 24 * * * /bin/x", "5-1 * * * * /bin/x", "0 0 * * 8 /bin/x", "0 0 * * *"):
        with pytest.raises(ref["MalformedEntry"]) as raised:
            ref["cron_entries"](f"# c\nA=b\n{bad}\n", False)
        assert raised.value.args == (3,)


def build(seed: int = 5, tag: str = "r1s1", art: Artifact | None = None) -> Any:
    art = art or artifact()
    return OP.step(art, StepContext(discovery=discovery(art), rng=random.Random(seed), tag=tag))


def test_build_is_deterministic_and_states_every_path_and_rule() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    tool, out = "/app/bin/appdata_backup_next_runs", "/app/schedule/appdata_backup_next_runs.txt"
    assert [a.path for a in step.produces] == [out, tool]
    assert step.produces[0].bookkeeping and step.produces[1].executable
    for path in (tool, out, step.consumes):
        assert f"`{path}`" in step.instruction, path
    for rule in ("Sunday", "either", "line number", "with a user field", "strictly after", "status 2", "`*/0`"):
        assert rule in step.instruction, rule
    start, count = re.search(r"START `(\S+)` and N = (\d+)", step.instruction).groups()  # type: ignore[union-attr]
    assert start.startswith(("2026-", "2027-")) and 8 <= int(count) <= 20
    assert f"{tool} /etc/cron.d/appdata-backup {start} {count} >" in step.solution
    assert "without a user field" in build(art=artifact(CRONTAB, "/app/out/jobs.crontab")).instruction


def test_generated_tests_pass_on_the_solution_tool(tmp_path: Path) -> None:
    """The step's own tests run against its tool (written from the solution) on the local python3."""
    step = build(seed=11)
    script = step.solution.split("<<'PY'\n", 1)[1].split("\nPY\n", 1)[0]
    tool = tmp_path / "next_runs"
    tool.write_text(script + "\n")
    tool.chmod(0o755)
    src = tmp_path / "appdata-backup"
    src.write_text(CRON_D)
    namespace: dict[str, Any] = {}
    imports = "".join(f"import {m}\n" for m in sorted({*step.imports, "pathlib"}))
    exec(imports + step.tests, namespace)
    out = tmp_path / "out.txt"
    done = subprocess.run([tool, src, namespace["START"], str(namespace["COUNT"])], capture_output=True, check=True)
    out.write_bytes(done.stdout)
    namespace.update(TOOL=str(tool), SRC=str(src), OUT=str(out))
    tests = [f for name, f in namespace.items() if name.startswith("test_r1s1_")]
    assert len(tests) == 3
    for test in tests:
        (tmp_path / test.__name__).mkdir()
        if "tmp_path" in test.__code__.co_varnames[: test.__code__.co_argcount]:
            test(tmp_path / test.__name__)
        else:
            test()
    out.write_text(out.read_text().replace("T", "t", 1))  # one value wrong: the first check fails
    with pytest.raises(AssertionError):
        namespace["test_r1s1_next_runs_of_the_schedule"]()


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    proposal, report = extend_with("cron-next-runs", parent_task(tmp_path, PARENT_SOLVE))
    assert_accepted(proposal, report, "cron-next-runs")
