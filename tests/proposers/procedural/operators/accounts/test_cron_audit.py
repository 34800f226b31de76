"""accounts-cron-audit: where it applies (a roster with a leaver), the cron rules on a hand-checked spool and
window, a deterministic step that plants a spool holding every kind of job and finding, its generated tests
passing on its own tool and failing on tools that combine both restricted day fields with AND, take weekday 7 for
no Sunday, include the window's end, count a step from 0 instead of the range's start, list environment lines as
jobs, take any line holding `=` for a setting or count `*/S` as a restricted day field; and a child accepted
against the onboarding seed."""

from __future__ import annotations

import datetime
import json
import random
import shutil
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.accounts.shipped import cron_audit as shipped
from tests.proposers.local_steps import failed, outcomes
from tests.proposers.procedural.operators.accounts.test_change_plan import ROSTER, SEED, artifact, discovery
from tests.support.operators import assert_accepted, extend_with

OP = OPERATORS["accounts-cron-audit"]
SAVED, MADE_UP = "test_r6s2_saved_report", "test_r6s2_tool_on_made_up_spools"
SPOOL = "/app/incoming/r6s2/crontabs"


def build(seed: int = 3) -> Step:
    found = discovery()
    return OP.step(found.artifacts[0], StepContext(discovery=found, rng=random.Random(seed), tag="r6s2"))


def run(step: Step, root: Path, solution: str | None = None) -> dict[str, str]:
    return outcomes(step, root, files={"/app/onboarding/roster.csv": ROSTER.encode()}, solution=solution)


def test_it_applies_to_a_roster_with_a_leaver() -> None:
    found = discovery()
    roster, groups = found.artifacts
    assert OP.can_use(roster, found) and not OP.can_use(groups, found)
    stayed = ROSTER.replace(",left", ",active")
    everyone = artifact(stayed, "/app/onboarding/roster.csv")
    assert not OP.can_use(everyone, discovery(everyone, groups))  # no leaver: no leaver's jobs to find


ANN = """MAILTO=ann@example.com
# 0 0 * * * /bin/commented-out
   \t
*/20 * * * * every-20
10-59/25 0 * * * from-10
30 1 * * * at-the-end
30 23 * * * at-the-start
15 0 1 * mon dom-only
45 0 * * 7 weekday-7
5 0 */2 * mon star-dom-and
0 1 * Jan-MAR * month-range
0 1 * jan,jul * month-list
\t@daily\tdaily
@reboot boot
PATH = /usr/bin:/bin
0 0 * * 5-7 fri-to-sun
20 0 * * * FOO=1 run # keep
"""


def test_cron_rules() -> None:
    # Saturday 2026-01-31 23:30 to Sunday 2026-02-01 01:30, the end left out
    start, end = datetime.datetime(2026, 1, 31, 23, 30), datetime.datetime(2026, 2, 1, 1, 30)
    spool = {"ann": ANN, "bob": "@hourly hourly\n", "root": "0 0 1 2 * first-of-feb\n", "cat": "# none\n"}
    roster = {"ann": "active", "bob": "left", "cat": "active"}
    got = shipped.audit(spool, roster, start, end)
    day = "2026-02-01T"
    runs = {(j["owner"], j["line"], j["command"]): j["runs"] for j in got["jobs"]}
    assert runs == {
        ("ann", 4, "every-20"): ["2026-01-31T23:40", *(day + t for t in ("00:00", "00:20", "00:40", "01:00", "01:20"))],
        ("ann", 5, "from-10"): [day + "00:10", day + "00:35"],
        ("ann", 6, "at-the-end"): [],
        ("ann", 7, "at-the-start"): ["2026-01-31T23:30"],
        ("ann", 8, "dom-only"): [day + "00:15"],  # both day fields restricted: the 1st is enough
        ("ann", 9, "weekday-7"): [day + "00:45"],
        ("ann", 10, "star-dom-and"): [],  # `*/2` starts with `*`: an odd day and a Monday both needed
        ("ann", 11, "month-range"): [day + "01:00"],
        ("ann", 12, "month-list"): [],
        ("ann", 13, "daily"): [day + "00:00"],
        ("ann", 14, "boot"): [],
        ("ann", 16, "fri-to-sun"): [day + "00:00"],
        ("ann", 17, "FOO=1 run # keep"): [day + "00:20"],
        ("bob", 1, "hourly"): [day + "00:00", day + "01:00"],
        ("root", 1, "first-of-feb"): [day + "00:00"],
    }
    assert [j["owner"] for j in got["jobs"]] == ["ann"] * 13 + ["bob", "root"]
    assert {j["owner"]: j["flag"] for j in got["jobs"]} == {"ann": None, "bob": "left", "root": "not_in_roster"}
    assert got["runs_per_owner"] == {"ann": 15, "bob": 2, "root": 1}


def test_build_is_deterministic_and_plants_each_finding() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    assert f"{SPOOL}/eokafor" in step.dockerfile  # the first leaver's crontab
    assert [a.path for a in step.produces] == ["/app/audit/cron_audit.json", "/app/bin/cron-audit"]
    assert "'flag': 'left'" in step.tests and "'flag': 'not_in_roster'" in step.tests  # WANT holds both findings
    for path in (SPOOL, "/app/onboarding/roster.csv", "/app/audit/cron_audit.json"):
        assert f"`{path}`" in step.instruction
    windows = {build(seed).instruction.split("window from ")[1][:10] for seed in range(6)}
    assert len(windows) > 3  # the window's date is drawn


def test_generated_tests_pass_on_the_tool(tmp_path: Path) -> None:
    for seed in (3, 8):
        results = run(build(seed), tmp_path / str(seed))
        assert len(results) == 3 and not failed(results), results
    report = json.loads((tmp_path / "3/app/audit/cron_audit.json").read_text())
    assert {j["flag"] for j in report["jobs"]} == {None, "left", "not_in_roster"}
    assert [] in [j["runs"] for j in report["jobs"]] and sum(report["runs_per_owner"].values()) > 10


def test_generated_tests_fail_on_subtly_wrong_tools(tmp_path: Path) -> None:
    step = build()
    wrongs = {
        "and": ("else day or weekday", "else day and weekday"),  # both day fields restricted: AND
        "seven": ("{d % 7 for d in sets[4]}", "{d for d in sets[4]}"),  # weekday 7 no Sunday
        "end": ("while minute < end:", "while minute <= end:"),  # the window's end included
        "zero": (
            "found.update(range(first, last + 1, int(step) if step else 1))",
            "found.update(v for v in range(first, last + 1) if v % (int(step) if step else 1) == 0)",
        ),  # `5-59/20` taken as 20, 40
        "settings": (
            "continue  # a setting",
            'jobs.append({"owner": owner, "line": number, "command": line, "flag": flag, "runs": []})\n'
            + " " * 16
            + "continue  #",
        ),  # environment lines listed as jobs that never fire
        "equals": ('r"[A-Za-z_][A-Za-z0-9_]*[ \\t]*=.*"', 'r".*=.*"'),  # `LANG=C cmd` taken for a setting
        "star": ('fields[2].startswith("*"), fields[4].startswith("*")', 'fields[2] == "*", fields[4] == "*"'),
    }
    for name, (old, new) in wrongs.items():
        wrong = step.solution.replace(old, new)
        assert wrong != step.solution, name
        assert {SAVED, MADE_UP} <= set(failed(run(step, tmp_path / name, wrong))), name


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    parent = shutil.copytree(SEED, tmp_path / SEED.name)  # the onboarded host; the old host's spool is planted
    proposal, report = extend_with("accounts-cron-audit", parent)
    assert_accepted(proposal, report, "accounts-cron-audit")
