"""text-tfidf-terms: where it applies (once per folder of prose, never an access log), the weighting rules
on a hand-checked pair of texts, a deterministic step that names its paths, its generated tests on its own
tool (and on one that keeps apostrophes at word ends), and a child accepted against a parent reading notes."""

from __future__ import annotations

import math
import random
import re
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.kit.workflow import plant
from rst_synth.proposers.procedural.operators.text.shipped import tfidf
from tests.proposers.local_step import LocalStep
from tests.proposers.procedural.operators.logs.test_access_log_sessions import LOG
from tests.support.operators import assert_accepted, extend_with, parent_task
from tests.support.tasks import BASE_DOCKERFILE

OP = OPERATORS["text-tfidf-terms"]
NOTES = [
    "The parser reads the table and the writer keeps the 'quoted' fields. Don't drop rows; "
    "the parser and the writer share one buffer, and the reader checks every row twice.\n" * 2,
    "Shipping labels print at noon. The courier scans the labels and the depot keeps the rows "
    "of every shipment; labels that fail go back to the queue for the next courier.\n" * 2,
]


def artifact(n: int, text: str | None = None) -> Artifact:
    path = f"/app/data/notes-{n + 1}.txt"
    body = NOTES[n] if text is None else text
    kind, details, sample = classify(path, body.encode())
    return Artifact(path=path, kind=kind, size=len(body.encode()), details=details, sample=sample, input=True)


def discovery(*extra: Artifact) -> Discovery:
    return Discovery(workdir="/app", artifacts=[artifact(0), artifact(1), *extra], tools=["python3"])


def build(seed: int = 4) -> Step:
    return OP.step(artifact(0), StepContext(discovery=discovery(), rng=random.Random(seed), tag="r3s1"))


def top_terms(texts: list[tuple[str, str]], top: int) -> list[list[str]]:
    return tfidf.top_terms(texts, top)


def test_it_applies_once_per_folder_of_prose() -> None:
    assert OP.can_use(artifact(0), discovery())
    assert OP.input_of(artifact(0)) == OP.input_of(artifact(1)) == "/app/data"
    same = "the mill and the den by the valley road, the bank and the mill again.\n" * 4
    shared = [artifact(n, same) for n in (0, 1)]  # one vocabulary: every score is 0, the table would be empty
    assert not OP.can_use(shared[0], Discovery(workdir="/app", artifacts=shared, tools=["python3"]))
    alone = Discovery(workdir="/app", artifacts=[artifact(0)], tools=["python3"])
    assert not OP.can_use(artifact(0), alone)  # one file: no document frequencies to weigh
    log = Artifact(path="/app/data/access.log", kind="text", sample=LOG, size=len(LOG))
    assert not OP.can_use(log, discovery(log))
    cron = (
        "# /etc/cron.d/e2scrub_all: crontab entries for the e2scrub_all script\n"
        "30 3 * * 0 root test -e /run/systemd/system || SERVICE_MODE=1 /usr/lib/e2fsprogs/e2scrub_all_cron\n"
        "10 3 * * * root test -e /run/systemd/system || SERVICE_MODE=1 /sbin/e2scrub_all -A -r\n"
    ) * 3
    schedules = [artifact(n, cron) for n in (0, 1)]
    assert not OP.can_use(schedules[0], Discovery(workdir="/app", artifacts=schedules, tools=["python3"]))


def test_weighting_rules() -> None:
    rows = top_terms([("a.txt", "Don't stop 'x' x x y"), ("b.txt", "y Z"), ("c.txt", "")], 2)
    # a: 6 terms; x appears 3 times only here: 3/6 * ln(3/1); don't, stop: 1/6 * ln 3; y is in a and b
    assert rows == [
        ["file", "rank", "term", "count", "tfidf"],
        ["a.txt", "1", "x", "3", f"{0.5 * math.log(3):.6f}"],
        ["a.txt", "2", "don't", "1", f"{math.log(3) / 6:.6f}"],
        ["b.txt", "1", "z", "1", f"{0.5 * math.log(3):.6f}"],
        ["b.txt", "2", "y", "1", f"{0.5 * math.log(1.5):.6f}"],
    ]


def test_build_is_deterministic_and_names_every_path() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    paths = set(re.findall(r"'(/app/[^']+)'", step.tests)) | {a.path for a in step.produces}
    assert paths == {
        "/app/data/notes-1.txt",
        "/app/data/notes-2.txt",
        "/app/bin/data_tfidf",
        "/app/terms/data_tfidf.csv",
    }
    assert all(f"`{p}`" in step.instruction for p in paths)


def test_generated_tests_pass_on_the_tool_and_fail_on_kept_apostrophes(tmp_path: Path) -> None:
    local = LocalStep(build(), tmp_path)
    for n, text in enumerate(NOTES):
        local.put(f"/app/data/notes-{n + 1}.txt", text)
    local.solve()
    assert len(local.run_tests(tmp_path / "t")) == 3
    tool = local.path("/app/bin/data_tfidf")
    source = tool.read_text()
    tool.write_text(
        source.replace(
            """return [w.strip("'") for w in WORD.findall(text.lower()) if w.strip("'")]""",
            'return [w for w in WORD.findall(text.lower()) if w.strip("\'")]',
        )
    )
    assert tool.read_text() != source
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "wrong", only="fresh")


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    dockerfile = BASE_DOCKERFILE + "".join(plant(f"/app/data/notes-{n + 1}.txt", t) for n, t in enumerate(NOTES))
    solve = "mkdir -p /app/out\ncat /app/data/notes-*.txt | wc -w > /app/out/words.txt\n"
    parent = parent_task(tmp_path, solve, dockerfile=dockerfile)
    (parent / "instruction.md").write_text("Count the words of the notes in `/app/data/` into `/app/out/words.txt`.\n")
    proposal, report = extend_with("text-tfidf-terms", parent)
    assert_accepted(proposal, report, "text-tfidf-terms")


def test_once_per_lineage() -> None:
    assert OP.once  # its tool is the same program whatever the input: a second step would be a copy
