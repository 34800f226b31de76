from __future__ import annotations

from rst_synth.engine import NoveltyIndex
from rst_synth.task import Task
from tests.support.tasks import SEEDS


def _child(parent: Task, extra_instruction: str, extra_solution: str) -> Task:
    child = parent.model_copy(deep=True)
    child.instruction = parent.instruction + "\n" + extra_instruction
    child.set_text("solution/solve.sh", parent.solve_sh + "\n" + extra_solution)
    return child


def test_identical_addition_is_a_duplicate_and_a_different_one_is_not() -> None:
    parent = Task.load(SEEDS / "sales-csv-rollup")
    index = NoveltyIndex()
    first = _child(
        parent,
        "Then count the lines of the report and write the count to /app/n.txt.",
        "wc -l < /app/report/region_month.csv > /app/n.txt",
    )
    index.add("first", *index.fingerprints(first, parent))
    twin = _child(
        parent,
        "Then count the lines of the report and write the count to /app/n.txt.",
        "wc -l < /app/report/region_month.csv > /app/n.txt",
    )
    sibling = _child(
        parent,
        "Then archive the whole report folder as /app/report.tar.gz with sorted names.",
        "tar --sort=name -czf /app/report.tar.gz -C /app report",
    )
    assert index.duplicate_of(*index.fingerprints(twin, parent)) == "first"
    assert index.duplicate_of(*index.fingerprints(sibling, parent)) is None
    # Whole-task similarity alone would have called the sibling a duplicate:
    whole_first, _ = index.fingerprints(first, parent)
    whole_sibling, _ = index.fingerprints(sibling, parent)
    assert whole_first.jaccard(whole_sibling) >= index.config.whole_threshold


def test_fingerprints_survive_the_store_format() -> None:
    index = NoveltyIndex()
    digest = index.fingerprint("some words to shingle into a minhash digest for the test")
    assert index.load(NoveltyIndex.dump(digest)).jaccard(digest) == 1.0
