"""Per-round step figures: the bookkeeping share of whole lineages and the operators a round used."""

from __future__ import annotations

from rst_synth.cli.tables import steps_table
from rst_synth.report import run_stats
from rst_synth.store import Store, TaskRow


def _accept(store: Store, task_id: str, round_: int, parent: str | None, steps: list[str]) -> None:
    store.add_candidate(f"c-{task_id}", round_, parent, 0)
    row = TaskRow(
        id=task_id,
        name=f"o/{task_id}",
        round=round_,
        parent_id=parent,
        root_id="seed",
        path=f"tasks/r{round_:02d}/{task_id}",
        steps=steps,
    )
    store.accept(f"c-{task_id}", row, b"w", b"a")


def test_bookkeeping_share_counts_whole_lineages(tmp_path) -> None:
    store = Store(tmp_path / "run.db")
    for round_ in range(3):
        store.start_round(round_)
    _accept(store, "seed", 0, None, [])
    _accept(store, "a", 1, "seed", ["git-revert-on-branch", "csv-rollup-tool", "csv-to-sqlite", "git-tag-annotated"])
    _accept(store, "b", 2, "a", ["file-sha256-manifest"])  # lineage: 5 steps, 1 bookkeeping
    _accept(store, "c", 2, "a", ["csv-rollup-tool", "sqlite-window-report"])  # lineage: 6 steps, none
    for round_ in range(3):
        store.finish_round(round_)
    stats = {s.round: s for s in run_stats(store, frozenset({"file-sha256-manifest", "files-bundle-targz"}))}
    assert stats[0].bookkeeping_share is None and stats[0].operators == {}  # a seed adds no steps
    assert stats[1].bookkeeping_share == 0.0
    assert stats[2].bookkeeping_share == 1 / 11
    assert stats[2].operators == {"file-sha256-manifest": 1, "csv-rollup-tool": 1, "sqlite-window-report": 1}
    assert run_stats(store)[2].bookkeeping_share is None  # without the operator names it is not known
    table = steps_table(list(stats.values()))
    assert [c.header for c in table.columns] == ["round", "bookkeeping", "operators", "most used"]
    assert table.row_count == 3
