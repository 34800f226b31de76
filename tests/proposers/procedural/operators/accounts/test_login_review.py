"""accounts-login-review: where it applies (a roster with a leaver), the review's rules on a hand-checked log, a
deterministic step that plants an auth log holding every kind of finding, its generated tests passing on its own
tool and failing on tools that check the window strictly, count `Invalid user` lines as failures, leave the
leaver's login unflagged, read times with strptime's default year or find the phrases anywhere in a line; and a
child accepted against the onboarding seed."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.accounts.shipped import login_review as shipped
from tests.proposers.local_steps import failed, outcomes
from tests.proposers.procedural.operators.accounts.test_change_plan import ROSTER, SEED, artifact, discovery
from tests.support.operators import assert_accepted, extend_with

OP = OPERATORS["accounts-login-review"]
SAVED, MADE_UP = "test_r6s2_saved_report", "test_r6s2_tool_on_made_up_logs"


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
    assert not OP.can_use(everyone, discovery(everyone, groups))  # no leaver: no leaver's login to find


def test_review_rules() -> None:
    log = [
        "Feb 28 23:59:00 old sshd[1]: Accepted publickey for ann from 10.0.0.1 port 5000 ssh2: ED25519 SHA256:x",
        "Feb 29 00:01:00 old sshd[2]: Accepted password for ann from 10.0.0.1 port 5001 ssh2",
        "Feb 29 00:02:00 old sshd[3]: Failed password for bob from 10.0.0.2 port 5002 ssh2",
        "Feb 29 00:03:00 old sshd[4]: Accepted publickey for eve from 10.0.0.3 port 5003 ssh2",
        "Feb 29 00:03:30 old sshd[5]: Accepted publickey for root from 10.0.0.3 port 5004 ssh2",
        "Mar  1 01:00:00 old sshd[6]: Invalid user admin from 203.0.113.9 port 6000",
        "Mar  1 01:00:00 old sshd[6]: Failed password for invalid user admin from 203.0.113.9 port 6000 ssh2",
        "Mar  1 01:05:00 old sshd[7]: Failed password for invalid user test from 203.0.113.9 port 6001 ssh2",
        "Mar  1 01:00:00 old sshd[8]: Failed password for bob from 198.51.100.4 port 6002 ssh2",
        "Mar  1 01:05:01 old sshd[9]: Failed password for bob from 198.51.100.4 port 6003 ssh2",
        "Mar  1 01:06:00 old CRON[9]: Failed password for cat from 10.0.0.9 port 22 ssh2",
        "Mar  1 01:07:00 old sshd[10]: Invalid user cat from 10.0.0.9 port 22",
    ]
    roster = {"ann": "active", "bob": "active", "cat": "active", "eve": "left", "dan": "left"}
    got = shipped.review(log, roster, 2024, 2, 5)
    assert got["users"] == {
        "ann": {"accepted": 2, "failed": 0, "last_accepted": "2024-02-29T00:01:00", "flag": None},
        "bob": {"accepted": 0, "failed": 3, "last_accepted": None, "flag": None},
        "eve": {"accepted": 1, "failed": 0, "last_accepted": "2024-02-29T00:03:00", "flag": "left"},
        "root": {"accepted": 1, "failed": 0, "last_accepted": "2024-02-29T00:03:30", "flag": "not_in_roster"},
    }
    assert got["brute_force"] == [{"source": "203.0.113.9", "first_failure": "2024-03-01T01:00:00", "failures": 2}]


def test_build_is_deterministic_and_plants_each_finding() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    assert "/app/incoming/r6s2/oldhost-auth.log" in step.dockerfile
    assert [a.path for a in step.produces] == ["/app/audit/login_review.json", "/app/bin/login-review"]
    assert "'flag': 'left'" in step.tests and "'flag': 'not_in_roster'" in step.tests  # WANT holds both findings
    for path in ("/app/incoming/r6s2/oldhost-auth.log", "/app/onboarding/roster.csv", "/app/audit/login_review.json"):
        assert f"`{path}`" in step.instruction


def test_generated_tests_pass_on_the_tool(tmp_path: Path) -> None:
    for seed in (3, 8):
        results = run(build(seed), tmp_path / str(seed))
        assert len(results) == 3 and not failed(results), results
    report = json.loads((tmp_path / "3/app/audit/login_review.json").read_text())
    assert len(report["brute_force"]) == 1 and {u["flag"] for u in report["users"].values()} == {
        None,
        "left",
        "not_in_roster",
    }


def test_generated_tests_fail_on_subtly_wrong_tools(tmp_path: Path) -> None:
    step = build()
    strict = step.solution.replace("<= span", "< span")
    assert strict != step.solution  # failures exactly the window apart no longer count
    assert {SAVED, MADE_UP} <= set(failed(run(step, tmp_path / "strict", strict)))
    invalid = step.solution.replace(
        "Failed \\S+ for (?:invalid user )?", "(?:Failed \\S+ for (?:invalid user )?|Invalid user )"
    )
    assert invalid != step.solution  # an `Invalid user` line counted as a failure of its own
    assert {SAVED, MADE_UP} <= set(failed(run(step, tmp_path / "invalid", invalid)))
    lenient = step.solution.replace('entry["accepted"] and status == "left"', "False")
    assert lenient != step.solution  # the leaver's login left unflagged
    assert {SAVED, MADE_UP} <= set(failed(run(step, tmp_path / "lenient", lenient)))
    yearless = step.solution.replace(
        "    month, day, clock = stamp.split()\n",
        "    return datetime.datetime.strptime(stamp, '%b %d %H:%M:%S').replace(year=year)\n",
    )
    assert yearless != step.solution  # strptime's default year 1900 has no Feb 29: the made-up logs cross it
    assert MADE_UP in failed(run(step, tmp_path / "yearless", yearless))
    grep = step.solution.replace("pattern.match(head[2])", "pattern.search(line)")
    grep = grep.replace(r'\S+ sshd\[\d+\]: (.*)")', r'\S+ \S+: (.*)")')
    assert grep != step.solution  # the phrase found anywhere: cron's grep for a root login counts
    assert {SAVED, MADE_UP} <= set(failed(run(step, tmp_path / "grep", grep)))


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    parent = shutil.copytree(SEED, tmp_path / SEED.name)  # the onboarded host; the old host's log is planted
    proposal, report = extend_with("accounts-login-review", parent)
    assert_accepted(proposal, report, "accounts-login-review")
