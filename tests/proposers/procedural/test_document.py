"""A lineage's instruction is one document: the scenario's opening, the seed's job, then the deliverables by
purpose; each round's parts land in their sections, keep their own spans and read without "Next, ..."."""

from __future__ import annotations

from pathlib import Path

from rst_synth.proposers.child import Extension, NewStep, assemble_child, split_child
from rst_synth.proposers.procedural.document import START_HEADING, Part, as_part, compose, demoted, parse
from rst_synth.proposers.procedural.scenarios import BY_NAME, HEADINGS, Purpose
from rst_synth.task import Task
from tests.support.tasks import write_task

SEED = """# Sales rollup

Finance dropped `/app/data/sales.csv`. Write `/app/out/totals.csv`.

```bash
## not a heading: inside a code block
```
"""
SCENARIO = BY_NAME["quarter-close"]
TEST = "def test_x():\n    assert True\n"


def _span(text: str, span: tuple[int, int]) -> str:
    return "\n".join(text.split("\n")[span[0] - 1 : span[1]])


def test_the_first_child_opens_with_the_scenario_and_takes_the_seed_as_its_start() -> None:
    report = "Next, write `/app/out/by_region.csv` with the header `region,total`."
    text, spans = compose(SEED, SCENARIO, [Part(Purpose.REPORT, report)], started=False)
    lines = text.split("\n")
    assert lines[0] == f"# {SCENARIO.title}" and SCENARIO.who in lines[2]
    assert f"## {START_HEADING}" in lines and f"## {HEADINGS[Purpose.REPORT]}" in lines
    assert "### Sales rollup" in lines and "## not a heading: inside a code block" in lines
    assert _span(text, spans[0]) == "Write `/app/out/by_region.csv` with the header `region,total`."
    assert "Next," not in text


def test_later_rounds_add_parts_to_their_sections_in_the_order_first_needed() -> None:
    first, _ = compose(SEED, SCENARIO, [Part(Purpose.REPORT, "Write `/a.csv`.\n\nIt has two rows.")], started=False)
    tool = Part(Purpose.TOOL, "Next, write a tool `/app/bin/t`.")
    fix = Part(Purpose.REPAIR, "Then, fix `/app/bin/broken`.")
    more = Part(Purpose.REPORT, "Write `/b.csv`.")
    text, spans = compose(first, SCENARIO, [tool, fix, more], started=True)
    assert [_span(text, s) for s in spans] == [
        "Write a tool `/app/bin/t`.",
        "Fix `/app/bin/broken`.",
        "Write `/b.csv`.",
    ]
    headings = [line for line in text.split("\n") if line.startswith("## ") and "inside" not in line]
    assert headings == [
        f"## {START_HEADING}",
        *(f"## {HEADINGS[p]}" for p in (Purpose.REPORT, Purpose.TOOL, Purpose.REPAIR)),
    ]
    document = parse(text)
    assert document.parts[Purpose.REPORT] == ["Write `/a.csv`.", "", "It has two rows.", "", "Write `/b.csv`."]
    assert "```bash" in document.start and document.head[0] == f"# {SCENARIO.title}"
    again, _ = compose(text, SCENARIO, [], started=True)
    assert again == text  # parsing and rendering a document gives it back


def test_headings_move_down_outside_code_blocks_only() -> None:
    assert demoted("# A\n## B\n```\n# c\n```\n###### F") == "### A\n#### B\n```\n# c\n```\n###### F"
    assert as_part("\nNext, measure `x`.\n") == "Measure `x`."
    assert as_part("Write `Next, x`.") == "Write `Next, x`."


def test_each_step_of_a_composed_child_comes_back_as_its_own_part(tmp_path: Path) -> None:
    """`split_child` (and so the multi-step export) reads each step's part of the document."""
    parent = Task.load(write_task(tmp_path, instruction=SEED, solve="mkdir -p /app/out\n"))
    steps = [
        NewStep(
            name="a",
            tag="r1s1",
            solution="echo a > /app/out/a.txt\n",
            test_module=TEST,
            instruction="Next, write `/app/out/a.txt`.",
        ),
        NewStep(
            name="b",
            tag="r1s2",
            solution="echo b > /app/bin/b\n",
            test_module=TEST,
            instruction="Write the tool `/app/bin/b`.",
        ),
    ]
    purposes = {"r1s1": Purpose.REPORT, "r1s2": Purpose.TOOL}

    def write(instruction: str, added: list[NewStep]) -> tuple[str, list[tuple[int, int]]]:
        return compose(instruction, SCENARIO, [Part(purposes[s.tag], s.instruction) for s in added], started=False)

    child = assemble_child(parent, Extension(steps=steps), proposer="procedural", compose=write)
    assert child.instruction.startswith(f"# {SCENARIO.title}\n")
    back = split_child(parent, child).steps
    assert [s.instruction for s in back] == ["Write `/app/out/a.txt`.\n", "Write the tool `/app/bin/b`.\n"]
