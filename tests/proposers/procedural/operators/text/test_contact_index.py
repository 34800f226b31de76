"""text-contact-index: where it applies (once per corpus folder), the extraction rules on hand-checked
lines, a deterministic step that names its paths, its generated tests on its own tool (and on one that
takes space-separated numbers for phones), and a child accepted against a parent that reads a corpus."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.kit.workflow import plant
from rst_synth.proposers.procedural.operators.text.shipped import contacts as shipped
from tests.proposers.local_step import LocalStep
from tests.support.operators import assert_accepted, extend_with, parent_task
from tests.support.tasks import BASE_DOCKERFILE

OP = OPERATORS["text-contact-index"]
NOTES = [
    "Customer <Ann.Lee@Example.com> called on 3/7/2025 from (415) 555-0134.\n"
    "Escalated by bob+ops@mail.acme.co.uk (212-555-0199) after the 2025-02-01 deploy.\n",
    "Forwarded to ann.lee@example.com and c_d@x-y.io on 12/31/2024. Phone: +1 303 555 0111\n"
    "root@localhost mailed itself; order 4155550199 shipped to dev.team@sub.example.org.\n",
]


def artifact(n: int) -> Artifact:
    path = f"/app/corpus/batch-{n + 1}.txt"
    kind, details, sample = classify(path, NOTES[n].encode())
    return Artifact(path=path, kind=kind, size=len(NOTES[n].encode()), details=details, sample=sample, input=True)


def discovery() -> Discovery:
    return Discovery(workdir="/app", artifacts=[artifact(0), artifact(1)], tools=["python3"])


def build(seed: int = 2) -> Step:
    return OP.step(artifact(1), StepContext(discovery=discovery(), rng=random.Random(seed), tag="r2s1"))


def contacts(texts: list[str]) -> list[list[str]]:
    return shipped.contacts(texts)


def test_it_applies_once_per_corpus_folder() -> None:
    assert OP.can_use(artifact(1), discovery())
    assert OP.input_of(artifact(0)) == OP.input_of(artifact(1)) == "/app/corpus"
    plain = Artifact(path="/app/notes.txt", kind="text", sample="no addresses here\n")
    assert not OP.can_use(plain, discovery())


def test_extraction_rules() -> None:
    assert contacts(NOTES) == [
        ["email", "lines", "phones", "first_date", "last_date"],
        ["ann.lee@example.com", "2", "+13035550111;+14155550134", "2024-12-31", "2025-03-07"],
        ["bob+ops@mail.acme.co.uk", "1", "+12125550199", "2025-02-01", "2025-02-01"],
        ["c_d@x-y.io", "1", "+13035550111", "2024-12-31", "2024-12-31"],
        ["dev.team@sub.example.org", "1", "", "", ""],
    ]


def test_build_is_deterministic_and_names_every_path() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    paths = set(re.findall(r"'(/app/[^']+)'", step.tests)) | {a.path for a in step.produces}
    assert paths == {
        "/app/corpus/batch-1.txt",
        "/app/corpus/batch-2.txt",
        "/app/bin/corpus_contacts",
        "/app/contacts/corpus_contacts.csv",
    }
    assert all(f"`{p}`" in step.instruction for p in paths)


def test_generated_tests_pass_on_the_tool_and_fail_on_spaced_numbers(tmp_path: Path) -> None:
    local = LocalStep(build(), tmp_path)
    for n, text in enumerate(NOTES):
        local.put(f"/app/corpus/batch-{n + 1}.txt", text)
    local.solve()
    assert len(local.run_tests(tmp_path / "t")) == 3
    tool = local.path("/app/bin/corpus_contacts")
    source = tool.read_text()
    tool.write_text(source.replace("[0-9]{3}([-.])[0-9]{3}\\2)", "[0-9]{3}([-. ])[0-9]{3}\\2)"))
    assert tool.read_text() != source
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "wrong", only="fresh")


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    lines = "".join(plant(f"/app/corpus/batch-{n + 1}.txt", text) for n, text in enumerate(NOTES))
    dockerfile = BASE_DOCKERFILE + lines
    solve = (
        "mkdir -p /app/out\ncat /app/corpus/*.txt | grep -oE '[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+' | sort -u"
        " > /app/out/emails.txt\n"
    )
    parent = parent_task(tmp_path, solve, dockerfile=dockerfile)
    (parent / "instruction.md").write_text("List the addresses in `/app/corpus/` as `/app/out/emails.txt`.\n")
    proposal, report = extend_with("text-contact-index", parent)
    assert_accepted(proposal, report, "text-contact-index")


def test_once_per_lineage() -> None:
    assert OP.once  # its tool is the same program whatever the input: a second step would be a copy
