"""csv-list-members: a roster whose `extra_groups` cells list groups (`reports;vpn`) gets a report of each
group's members; never a roster without lists, a lookup of names and lists alone, or a table of
identifiers. Its tests catch a missing member, a row counted twice and a wrong order."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.kit.workflow import plant
from rst_synth.proposers.procedural.operators.tables import list_members  # noqa: F401
from tests.proposers.local_step import LocalStep
from tests.proposers.procedural.operators.tables.test_crosstab import ROSTER as PLAIN_ROSTER
from tests.support.operators import assert_accepted, extend_with, parent_task
from tests.support.tasks import BASE_DOCKERFILE

OP = OPERATORS["csv-list-members"]
# A token repeated in one cell (dlopez), spaces around tokens (eokafor), a doubled separator (fsato), an empty
# cell (cnguyen) and a value that differs only in case (hpatel).
ROSTER = """username,uid,full_name,team,extra_groups,status
amoreau,2001,Anna Moreau,analytics,reports;vpn,active
bkeller,2002,Ben Keller,platform,ops;vpn,active
cnguyen,2003,Chi Nguyen,analytics,,active
dlopez,2004,Dan Lopez,support,vpn;vpn,active
eokafor,2005,Ebi Okafor,analytics, reports ; ops ,active
fsato,2006,Fumi Sato,support,reports;;vpn,left
gbrown,2007,Grace Brown,platform,vpn;reports;ops,active
hpatel,2008,Hana Patel,platform,VPN,active
iward,2009,Isla Ward,support,vpn,left
"""
SMALL = """username,uid,full_name,team,extra_groups,status
amoreau,2001,Anna Moreau,analytics,reports;vpn,active
bkeller,2002,Ben Keller,platform,ops;vpn,active
cnguyen,2003,Chi Nguyen,analytics,,active
gbrown,2007,Grace Brown,platform,vpn;reports;ops,active
iward,2009,Isla Ward,support,vpn,left
"""
PATH = "/app/onboarding/roster.csv"
OUT = "/app/derived/roster_extra_groups_members.csv"
ALL_ROWS = """group,members,count
vpn,amoreau bkeller dlopez fsato gbrown iward,6
reports,amoreau eokafor fsato gbrown,4
ops,bkeller eokafor gbrown,3
VPN,hpatel,1
"""
ACTIVE_ROWS = """group,members,count
vpn,amoreau bkeller dlopez gbrown,4
ops,bkeller eokafor gbrown,3
reports,amoreau eokafor gbrown,3
VPN,hpatel,1
"""


def artifact(text: str = ROSTER) -> Artifact:
    kind, details, sample = classify(PATH, text.encode())
    return Artifact(path=PATH, kind=kind, size=len(text), details=details, sample=sample, input=True, new=False)


def applies(text: str) -> bool:
    return OP.can_use(artifact(text), Discovery(workdir="/app", artifacts=[artifact(text)], tools=["python3"]))


def build(seed: int = 0) -> Step:
    discovery = Discovery(workdir="/app", artifacts=[artifact()], tools=["python3"])
    return OP.step(artifact(), StepContext(discovery=discovery, rng=random.Random(seed), tag="r4s1"))


def solved(step: Step, root: Path) -> LocalStep:
    local = LocalStep(step, root)
    local.put(PATH, ROSTER)
    local.path("/app/derived").mkdir(parents=True)
    local.solve()
    return local


def test_it_applies_to_a_column_of_lists_only() -> None:
    assert applies(ROSTER) and applies(SMALL)
    assert not applies(PLAIN_ROSTER)  # no cell lists anything
    ids_only = "username,uid\n" + "".join(f"u{i},{i}\n" for i in range(9))
    assert not applies(ids_only)
    lookup = "username,uid,extra_groups\n" + "".join(f"u{i},{i},{('ops;vpn', 'vpn', '')[i % 3]}\n" for i in range(9))
    assert not applies(lookup)  # nothing but the lists categorises the rows
    unnamed = "team,extra_groups,status\n" + "".join(
        f"{('a', 'b')[i % 2]},ops;vpn,{('x', 'y')[i % 3 == 0]}\n" for i in range(9)
    )
    assert not applies(unnamed)  # no identifier names the members


def test_build_is_deterministic_and_names_the_list_and_the_key() -> None:
    filters = set()
    for seed in range(8):
        step = build(seed)
        assert step == build(seed)
        compile(step.tests, "t", "exec")
        text = step.instruction
        assert "`extra_groups`" in text and "`username`" in text and "`;`" in text and f"`{OUT}`" in text
        assert "`group,members,count`" in text and "`full_name`" not in text and "`uid`" not in text
        filters.add(text.split("Consider only the rows whose ")[1].split(" value")[0] if "Consider" in text else "")
        assert [a.path for a in step.produces] == [OUT] and step.produces[0].end_result
    assert "" in filters and len(filters) > 1  # some steps keep every row, some one category value


@pytest.mark.parametrize(("seed", "table"), [(0, ALL_ROWS), (4, ACTIVE_ROWS)])
def test_the_solution_writes_the_hand_checked_table(tmp_path: Path, seed: int, table: str) -> None:
    step = build(seed)
    assert ("`status` value, trimmed, is exactly `active`" in step.instruction) == (seed == 4)
    local = solved(step, tmp_path)
    assert local.path(OUT).read_text().replace("\r\n", "\n") == table
    assert len(local.run_tests(tmp_path / "t")) == 2


def _drop_member(rows: list[str]) -> None:
    token, members, count = rows[1].split(",")
    rows[1] = f"{token},{members.rsplit(' ', 1)[0]},{int(count) - 1}"


def _count_twice(rows: list[str]) -> None:
    token, members, count = rows[1].split(",")
    rows[1] = f"{token},{members} {members.split()[-1]},{int(count) + 1}"


def _swap(rows: list[str]) -> None:
    rows[2], rows[3] = rows[3], rows[2]


@pytest.mark.parametrize("corrupt", [_drop_member, _count_twice, _swap])
def test_the_tests_catch_a_subtly_wrong_table(tmp_path: Path, corrupt) -> None:  # type: ignore[no-untyped-def]
    step = build(4)
    local = solved(step, tmp_path)
    out = local.path(OUT)
    rows = out.read_text().splitlines()
    corrupt(rows)
    out.write_text("\n".join(rows) + "\n")
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "wrong")


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    dockerfile = BASE_DOCKERFILE + plant(PATH, ROSTER)
    solve = f"mkdir -p /app/out\nwc -l < {PATH} > /app/out/lines.txt\n"
    parent = parent_task(tmp_path, solve, dockerfile=dockerfile)
    (parent / "instruction.md").write_text(f"Count the lines of `{PATH}` into `/app/out/lines.txt`.\n")
    proposal, report = extend_with("csv-list-members", parent)
    assert_accepted(proposal, report, "csv-list-members")
