"""csv-crosstab: a table with two columns that categorise and no measure (a roster: team, status) still
gets a report that means something, and its tests catch a wrong cell or a missing total."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.tables import crosstab  # noqa: F401
from tests.proposers.local_step import LocalStep

OP = OPERATORS["csv-crosstab"]
ROSTER = "username,uid,team,status\n" + "".join(
    f"u{i},{1000 + i},{('ops', 'web', 'data')[i % 3]},{('active', 'inactive')[i % 4 == 3]}\n" for i in range(12)
)
PATH = "/app/onboarding/roster.csv"


def artifact(text: str = ROSTER) -> Artifact:
    kind, details, sample = classify(PATH, text.encode())
    return Artifact(path=PATH, kind=kind, size=len(text), details=details, sample=sample, input=True, new=False)


def build(seed: int = 0) -> Step:
    discovery = Discovery(workdir="/app", artifacts=[artifact()], tools=["python3"])
    return OP.step(artifact(), StepContext(discovery=discovery, rng=random.Random(seed), tag="r4s1"))


def test_it_crosses_two_categories_never_an_identifier() -> None:
    assert OP.can_use(artifact(), Discovery(workdir="/app", artifacts=[artifact()], tools=["python3"]))
    for seed in range(8):
        text = build(seed).instruction
        assert "`username`" not in text and "`uid`" not in text and "`team`" in text and "`status`" in text
    per_pair = "region,month,revenue\n" + "".join(
        f"{r},{m},{i}\n"
        for i, (r, m) in enumerate((r, m) for r in ("north", "south", "east") for m in ("01", "02", "03", "04"))
    )
    assert not OP.can_use(artifact(per_pair), Discovery(workdir="/app", artifacts=[], tools=["python3"]))  # all ones
    ids_only = "username,uid\n" + "".join(f"u{i},{i}\n" for i in range(9))
    assert not OP.can_use(artifact(ids_only), Discovery(workdir="/app", artifacts=[], tools=["python3"]))


def test_the_tests_pass_on_the_table_and_catch_a_wrong_cell(tmp_path: Path) -> None:
    step = build()
    local = LocalStep(step, tmp_path)
    local.put(PATH, ROSTER)
    local.path("/app/derived").mkdir(parents=True)
    local.solve()
    assert len(local.run_tests(tmp_path / "t")) == 2
    out = local.path(step.produces[0].path)
    rows = out.read_text().splitlines()
    cells = rows[1].split(",")
    cells[1] = str(int(cells[1]) + 1)
    out.write_text("\n".join([rows[0], ",".join(cells), *rows[2:]]) + "\n")
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "wrong")
