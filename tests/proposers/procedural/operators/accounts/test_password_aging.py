"""accounts-password-aging: where it applies (a roster with a leaver), the review's rules on a hand-checked shadow
file, a deterministic step that plants a shadow file holding every edge, its generated tests passing on its own
tool and failing on tools off by one at the password's or the account's expiry day, that check expiry before
inactivity, leave the leaver unflagged, take a `!` hash for a usable one or count days from the wrong epoch; and a
child accepted against the onboarding seed."""

from __future__ import annotations

import datetime
import json
import random
import shutil
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.accounts.shipped import password_aging as shipped
from tests.proposers.local_steps import failed, outcomes
from tests.proposers.procedural.operators.accounts.test_change_plan import ROSTER, SEED, artifact, discovery
from tests.support.operators import assert_accepted, extend_with

OP = OPERATORS["accounts-password-aging"]
SAVED, MADE_UP = "test_r6s3_saved_report", "test_r6s3_tool_on_made_up_shadow_files"


def build(seed: int = 3) -> Step:
    found = discovery()
    return OP.step(found.artifacts[0], StepContext(discovery=found, rng=random.Random(seed), tag="r6s3"))


def run(step: Step, root: Path, solution: str | None = None) -> dict[str, str]:
    return outcomes(step, root, files={"/app/onboarding/roster.csv": ROSTER.encode()}, solution=solution)


def test_it_applies_to_a_roster_with_a_leaver() -> None:
    found = discovery()
    roster, groups = found.artifacts
    assert OP.can_use(roster, found) and not OP.can_use(groups, found)
    stayed = ROSTER.replace(",left", ",active")
    everyone = artifact(stayed, "/app/onboarding/roster.csv")
    assert not OP.can_use(everyone, discovery(everyone, groups))  # no leaver: no leaver's password to find


def test_review_rules() -> None:
    day = (datetime.date(2024, 3, 1) - datetime.date(1970, 1, 1)).days
    assert day == 19783
    shadow = "\n".join(
        [
            "root:*:19000:0:99999:7:::",  # locked, no roster row: left out
            "sshd:!:19000:0:99999:7:::",
            "ann:$6$s$h:19753:0:30:7:::",  # expires on the as-of day
            "bob:$6$s$h:19754:0:30:7:::",  # one day left, within warn
            "cat:$6$s$h:19760:0:30:7:::",  # seven days left: warn's last day
            "dan:$6$s$h:19761:0:30:7:::",  # eight days left
            "eve:$6$s$h:19740:0:30:7:13::",  # 13 days past, inactive 13: run out
            "fay:$6$s$h:19741:0:30:7:13::",  # 12 days past
            "gus:$6$s$h:0:0:30:7::19900:",
            "hal:$6$s$h:19000:0::7:::",
            "ivy:$6$s$h:19000:0:99999:7:::",
            "jon:$6$s$h:19700:0:90:7::19783:",  # the account expires on the as-of day
            "kim:!$6$s$h:19700:0:90:7:::",  # a leaver locked with `!`
            "lou:$6$s$h:19782:0:365:7:::",  # a leaver changed it on 2024-02-29
            "max::19700:0:90:7::19783:",  # no hash comes before the account's expiry
            "ned:$6$s$h:19780:0:90:7:::",  # no roster row, a usable hash
            "",
        ]
    )
    roster = {name: ("a", "active") for name in ("ann", "bob", "cat", "dan", "eve")}
    roster |= {name: ("b", "active") for name in ("fay", "gus", "hal", "ivy", "jon", "max")}
    roster |= {"kim": ("b", "left"), "lou": ("b", "left"), "zed": ("c", "active")}  # zed: no entry, in no team
    got = shipped.review(shadow, roster, "2024-03-01")
    want = {
        "ann": ("expired", 0, "2024-03-01", None),
        "bob": ("warning", 1, "2024-03-02", None),
        "cat": ("warning", 7, "2024-03-08", None),
        "dan": ("ok", 8, "2024-03-09", None),
        "eve": ("inactive", -13, "2024-02-17", None),
        "fay": ("expired", -12, "2024-02-18", None),
        "gus": ("must_change", None, None, None),
        "hal": ("never_expires", None, None, None),
        "ivy": ("never_expires", None, None, None),
        "jon": ("account_expired", 7, "2024-03-08", None),
        "kim": ("locked", 7, "2024-03-08", None),
        "lou": ("ok", 364, "2025-02-28", "left"),
        "max": ("no_password", 7, "2024-03-08", None),
        "ned": ("ok", 87, "2024-05-27", "not_in_roster"),
    }
    assert got["accounts"] == {
        name: {"status": s, "days_left": d, "expires_on": e, "flag": f} for name, (s, d, e, f) in want.items()
    }
    zero = dict.fromkeys(shipped.STATUSES, 0)
    assert got["teams"] == {
        "a": zero | {"expired": 1, "warning": 2, "ok": 1, "inactive": 1},
        "b": zero
        | {"expired": 1, "must_change": 1, "never_expires": 2, "account_expired": 1, "locked": 1, "ok": 1}
        | {"no_password": 1},
    }


def test_build_is_deterministic_and_plants_each_edge() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    assert "/app/incoming/r6s3/oldhost-shadow" in step.dockerfile
    assert [a.path for a in step.produces] == ["/app/audit/password_aging.json", "/app/bin/password-aging"]
    for path in ("/app/incoming/r6s3/oldhost-shadow", "/app/onboarding/roster.csv", "/app/audit/password_aging.json"):
        assert f"`{path}`" in step.instruction
    assert f"--as-of {shipped.as_of_date(random.Random(3))}" in step.solution  # the build's first draw
    dates = {build(seed).solution.rsplit("--as-of ", 1)[1].split()[0] for seed in range(8)}
    assert len(dates) > 4  # the as-of date is drawn per build


def test_planted_shadow_holds_every_edge() -> None:
    roster = {r.split(",")[0]: (r.split(",")[3], r.split(",")[5]) for r in ROSTER.splitlines()[1:]}
    for seed in range(20):
        rng = random.Random(seed)
        as_of = shipped.as_of_date(rng)
        text = shipped.shadow_file(rng, roster, as_of)
        accounts = shipped.review(text, roster, as_of)["accounts"]
        statuses = {a["status"] for a in accounts.values()}
        assert set(shipped.STATUSES) - {"ok"} <= statuses, (seed, statuses)
        assert 0 in {a["days_left"] for a in accounts.values()}
        assert {"left", "not_in_roster"} <= {a["flag"] for a in accounts.values()}
        assert any(a["status"] == "locked" and roster[n][1] == "left" for n, a in accounts.items() if n in roster)
        day = (datetime.date.fromisoformat(as_of) - shipped.EPOCH).days
        lines = [line.split(":") for line in text.splitlines()]
        assert {"*", "!", ""} <= {f[1] for f in lines}  # system accounts locked both ways, an empty hash
        assert any(f[7] == str(day) for f in lines) and any(f[4] == "" for f in lines)
        assert any(f[2] == "0" for f in lines) and any(f[4] == "99999" and f[1][:1] == "$" for f in lines)
        leap = [f for f in lines if datetime.date(1970, 1, 1) + datetime.timedelta(int(f[2])) == leap_day(as_of)]
        assert leap, (seed, as_of)  # a password changed on the Feb 29 before the as-of date


def leap_day(as_of: str) -> datetime.date:
    when = datetime.date.fromisoformat(as_of)
    return max(datetime.date(y, 2, 29) for y in range(2000, when.year + 1, 4) if datetime.date(y, 2, 29) < when)


def test_generated_tests_pass_on_the_tool(tmp_path: Path) -> None:
    for seed in (3, 8):
        results = run(build(seed), tmp_path / str(seed))
        assert len(results) == 3 and not failed(results), results
    report = json.loads((tmp_path / "3/app/audit/password_aging.json").read_text())
    assert {a["flag"] for a in report["accounts"].values()} == {None, "left", "not_in_roster"}
    assert set(report["teams"]) == {"analytics", "platform", "support"}


@pytest.mark.parametrize(
    ("why", "old", "new"),
    [
        ("a password expiring on the as-of day still valid", "if left <= 0:", "if left < 0:"),
        ("an account expiring on the as-of day still valid", 'f["expire"] <= day', 'f["expire"] < day'),
        (
            "an expired password checked before the inactive days",
            '    if inactive is not None and left + inactive <= 0:\n        return "inactive", left\n'
            '    if left <= 0:\n        return "expired", left\n',
            '    if left <= 0:\n        return "expired", left\n'
            '    if inactive is not None and left + inactive <= 0:\n        return "inactive", left\n',
        ),
        ("the leaver's usable password left unflagged", 'person[1] == "left" and status in USABLE', "False"),
        ("a `!` hash taken for a usable one", '("!", "*")', '("*",)'),
        ("1970-01-01 counted as day 1", "datetime.date(1970, 1, 1)", "datetime.date(1969, 12, 31)"),
    ],
)
def test_generated_tests_fail_on_subtly_wrong_tools(tmp_path: Path, why: str, old: str, new: str) -> None:
    step = build()
    wrong = step.solution.replace(old, new)
    assert wrong != step.solution, why
    assert {SAVED, MADE_UP} <= set(failed(run(step, tmp_path, wrong))), why


def test_generated_tests_refuse_bad_calls(tmp_path: Path) -> None:
    step = build()
    lenient = step.solution.replace("if not DAY.fullmatch(args.as_of):", "if False:")
    assert lenient != step.solution  # `20240301` read as a date
    assert failed(run(step, tmp_path, lenient)) == ["test_r6s3_tool_refuses_what_it_cannot_read"]


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    parent = shutil.copytree(SEED, tmp_path / SEED.name)  # the onboarded host; the old host's shadow is planted
    proposal, report = extend_with("accounts-password-aging", parent)
    assert_accepted(proposal, report, "accounts-password-aging")
