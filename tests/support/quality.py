"""Tiny parents and children for the quality checks: each child triggers one reason, or none.

They use only what the fake sandbox understands (`echo TEXT > PATH`, `read_text().strip() == ...`,
`exists()`), which is real bash and pytest too, so the same tasks run on the fake and on Docker;
`varying` alone writes several lines (`printf`) and needs the real engine.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rst_synth.proposers.child import Extension, NewStep, assemble_child
from rst_synth.task import Task
from tests.support.tasks import write_task

PARENT_TEXT = "parent report: 42 rows counted"
SUMMARY = "summary: 7 errors found in 3 files"


def reads_test(path: str, text: str) -> str:
    return (
        f'from pathlib import Path\n\n\ndef test_reads():\n    assert Path("{path}").read_text().strip() == "{text}"\n'
    )


def exists_test(path: str) -> str:
    return f'from pathlib import Path\n\n\ndef test_exists():\n    assert Path("{path}").exists()\n'


def parent(root: Path, *, weak: bool = False) -> Task:
    """Writes PARENT_TEXT to /app/report.txt; `weak`: its test checks only that the file exists."""
    tests = exists_test("/app/report.txt") if weak else reads_test("/app/report.txt", PARENT_TEXT)
    return Task.load(
        write_task(
            root,
            name="weak-parent" if weak else "parent",
            solve=f'echo "{PARENT_TEXT}" > /app/report.txt\n',
            tests={"test_outputs.py": tests},
            instruction=f"Write the line `{PARENT_TEXT}` to /app/report.txt.\n",
        )
    )


def step(tag: str, solution: str, test_module: str, instruction: str) -> NewStep:
    return NewStep(name="quality-test", tag=tag, solution=solution, test_module=test_module, instruction=instruction)


def writes(tag: str, path: str, text: str, *, test: str | None = None, instruction: str | None = None) -> NewStep:
    """A step that writes `text` to `path`; its test reads it back unless `test` says otherwise."""
    return step(
        tag,
        f'echo "{text}" > {path}\n',
        test if test is not None else reads_test(path, text),
        instruction if instruction is not None else f"Write the line `{text}` to {path}.",
    )


def child(of: Task, *steps: NewStep) -> Task:
    return assemble_child(of, Extension(steps=list(steps)), proposer="hand")


def good(root: Path) -> tuple[Task, Task]:
    up = parent(root)
    return child(up, writes("r1s1", "/app/summary.txt", SUMMARY)), up


def redundant(root: Path) -> tuple[Task, Task]:
    """Copies the parent's report under a new name."""
    up = parent(root)
    return child(up, writes("r1s1", "/app/report2.txt", PARENT_TEXT)), up


def changes_parent(root: Path) -> tuple[Task, Task]:
    """Overwrites the report the parent's (weak) test reads; the parent's test still passes."""
    up = parent(root, weak=True)
    return child(up, writes("r1s1", "/app/report.txt", SUMMARY)), up


def unnecessary(root: Path) -> tuple[Task, Task]:
    """Two steps; the second one's test checks the first one's output, so the second is not needed."""
    up = parent(root)
    first = writes("r1s1", "/app/summary.txt", SUMMARY)
    second = writes("r1s2", "/app/extra.txt", "extra: 5 lines kept of 9", test=reads_test("/app/summary.txt", SUMMARY))
    return child(up, first, second), up


def weak(root: Path) -> tuple[Task, Task]:
    """The new test only checks that the output exists: no content edit is noticed."""
    up = parent(root)
    return child(up, writes("r1s1", "/app/summary.txt", SUMMARY, test=exists_test("/app/summary.txt"))), up


def gap(root: Path) -> tuple[Task, Task]:
    """The instruction never says where the summary goes."""
    up = parent(root)
    return child(up, writes("r1s1", "/app/summary.txt", SUMMARY, instruction=f"Write the line `{SUMMARY}`.")), up


TABLE = "/app/above_mean.csv"
"""Where the table children write: the rows of a filter "above the mean"."""


def degenerate(root: Path) -> tuple[Task, Task]:
    """The filter leaves a header and no rows (one `echo`: the fake sandbox writes it too)."""
    up = parent(root)
    return child(up, writes("r1s1", TABLE, "name,count")), up


def varying(root: Path) -> tuple[Task, Task]:
    """`degenerate` with two rows whose counts differ; written with `printf`, so the real engine only."""
    up = parent(root)
    solution = f"printf '%s\\n' name,count alice,3 bob,5 > {TABLE}\n"
    test = (  # rows, not bytes: the tolerance check quotes the names
        "import csv\nfrom pathlib import Path\n\n\ndef test_reads():\n"
        f'    rows = list(csv.reader(Path("{TABLE}").read_text().splitlines()))\n'
        '    assert rows == [["name", "count"], ["alice", "3"], ["bob", "5"]]\n'
    )
    instruction = f"Write {TABLE}: the header `name,count`, then the rows `alice,3` and `bob,5`, one per line."
    return child(up, step("r1s1", solution, test, instruction)), up


CASES: dict[str, Callable[[Path], tuple[Task, Task]]] = {
    "instruction_gap": gap,
    "redundant_output": redundant,
    "degenerate_output": degenerate,
    "changes_parent_output": changes_parent,
    "step_unnecessary": unnecessary,
    "weak_tests": weak,
}
"""Reason value -> the (child, parent) that triggers it."""
