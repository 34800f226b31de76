"""The engine's logic on the fake sandbox and proposer: rounds, resume, budgets, repair, frontier,
novelty; no container, milliseconds each."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from rst_synth.engine import Engine, SynthConfig, frontier
from rst_synth.engine.engine import child_seed_key
from rst_synth.store import RunPaths, Store
from rst_synth.task import Task
from rst_synth.task.config import HistoryStep, Lineage
from rst_synth.validator import Validator, ValidatorConfig
from tests.support.fakes import FakeProposer, FakeSandbox, touch_test
from tests.support.tasks import write_task


def fake_seeds(root: Path, count: int) -> Path:
    seeds = root / "seeds"
    for k in range(count):
        write_task(
            seeds,
            name=f"seed{k}",
            solve=f"touch /app/seed{k}\n",
            tests={"test_outputs.py": touch_test(f"/app/seed{k}")},
            instruction=f"Create /app/seed{k}.\n",
        )
    return seeds


def run_engine(
    run: Path, seeds: Path, proposer: FakeProposer, sandbox: FakeSandbox | None = None, **options: object
) -> tuple[str, Store]:
    config = SynthConfig(seeds_dir=str(seeds), **options)  # type: ignore[arg-type]
    paths = RunPaths(run)
    paths.root.mkdir(parents=True, exist_ok=True)
    store = Store(paths.db)
    sandbox = sandbox or FakeSandbox()
    engine = Engine(config, paths, store, proposer, Validator(sandbox, ValidatorConfig()))
    return asyncio.run(engine.run()), store


def test_rounds_grow_with_lineage_and_disk_agrees_with_store(tmp_path: Path) -> None:
    sandbox = FakeSandbox()
    reason, store = run_engine(tmp_path / "run", fake_seeds(tmp_path, 2), FakeProposer(), sandbox, rounds=2, fanout=2)
    assert reason == "done"
    assert [len(store.tasks(r)) for r in range(3)] == [2, 4, 8]
    for row in store.tasks():
        task = Task.load(tmp_path / "run" / row.path)
        lineage = task.config.metadata.lineage
        assert (lineage.round if lineage else 0) == row.round
        if row.round:
            assert row.parent_id and store.task(row.parent_id) is not None
            assert task.config.metadata.metrics and task.config.metadata.metrics.solution_lines == row.solution_lines
    assert sandbox.live == 0 and sandbox.containers > 0


def test_a_crash_mid_round_resumes_without_repaying_finished_candidates(tmp_path: Path) -> None:
    seeds = fake_seeds(tmp_path, 3)
    crashing = FakeProposer(crash_after=8)  # round 1 (6 candidates) done, round 2 cut off
    with pytest.raises(RuntimeError, match="crashed"):
        run_engine(tmp_path / "run", seeds, crashing, rounds=2, fanout=2, proposal_workers=1, validation_workers=1)
    before = Store(RunPaths(tmp_path / "run").db)
    finished = {c.id for c in before.candidates() if c.status != "pending"}
    accepted_before = {t.id for t in before.tasks()}
    before.close()

    resumed = FakeProposer()
    reason, store = run_engine(tmp_path / "run", seeds, resumed, rounds=2, fanout=2)
    assert reason == "done"
    assert accepted_before <= {t.id for t in store.tasks()}
    assert not [c for c in store.candidates() if c.status == "pending"]
    finished_children = [c for c in store.candidates() if c.id in finished and c.round > 0]
    assert finished_children, "the crash came after some children were finished"
    for c in finished_children:
        parent = store.task(c.parent_id or "")
        assert parent is not None
        assert resumed.calls[f"propose:{parent.name.rsplit('/', 1)[-1]}:{c.seed}"] == 0
    ids = [t.id for t in store.tasks()]
    assert len(ids) == len(set(ids)) == 3 + 6 + 12


def test_max_candidates_stops_at_a_candidate_boundary(tmp_path: Path) -> None:
    reason, store = run_engine(
        tmp_path / "run", fake_seeds(tmp_path, 2), FakeProposer(), rounds=3, fanout=2, max_candidates=5
    )
    assert reason == "max_candidates (5) reached"
    assert store.candidate_count() == 5


def test_max_usd_stops_once_spend_reaches_it(tmp_path: Path) -> None:
    reason, store = run_engine(
        tmp_path / "run",
        fake_seeds(tmp_path, 2),
        FakeProposer(cost_per_call=0.01),
        rounds=3,
        fanout=2,
        max_usd=0.03,
        proposal_workers=1,
        validation_workers=1,
    )
    assert reason.startswith("max_usd")
    assert 0.03 <= store.total_cost() < 0.03 + 0.01 * 3  # in-flight candidates finish, no new one starts


def test_a_broken_proposal_is_repaired_and_its_attempts_recorded(tmp_path: Path) -> None:
    proposer = FakeProposer(broken=True)
    reason, store = run_engine(tmp_path / "run", fake_seeds(tmp_path, 1), proposer, rounds=1, fanout=1, repairs=1)
    assert reason == "done"
    (child,) = store.tasks(1)
    assert child.repair_attempts == 1
    (candidate,) = store.candidates(1)
    assert candidate.attempts == 2
    assert sum(v for k, v in proposer.calls.items() if k.startswith("repair:")) == 1


def test_without_repairs_a_broken_proposal_is_rejected_with_its_reason(tmp_path: Path) -> None:
    proposer = FakeProposer(broken=True)
    _, store = run_engine(tmp_path / "run", fake_seeds(tmp_path, 1), proposer, rounds=1, fanout=1, repairs=0)
    (candidate,) = store.candidates(1)
    assert (candidate.status, candidate.rejection_check, candidate.rejection_reason) == (
        "rejected",
        "oracle",
        "tests_failed",
    )


def test_a_proposal_error_is_a_propose_rejection_with_its_cost(tmp_path: Path) -> None:
    proposer = FakeProposer(failing=True, cost_per_call=0.02)
    reason, store = run_engine(tmp_path / "run", fake_seeds(tmp_path, 1), proposer, rounds=1, fanout=1)
    assert reason == "done"
    (candidate,) = store.candidates(1)
    assert (candidate.rejection_check, candidate.rejection_reason) == ("propose", "no_applicable_operator")
    assert candidate.cost_usd == pytest.approx(0.02)


def test_twins_are_rejected_as_near_duplicates(tmp_path: Path) -> None:
    # No repairs: the fake's repair of a twin is the same twin, which the pipeline calls repair_unchanged.
    proposer = FakeProposer(twins=True)
    _, store = run_engine(tmp_path / "run", fake_seeds(tmp_path, 1), proposer, rounds=1, fanout=3, repairs=0)
    statuses = sorted((c.status, c.rejection_reason) for c in store.candidates(1))
    assert statuses == [("accepted", None), ("rejected", "near_duplicate"), ("rejected", "near_duplicate")]


def test_frontier_samples_round_robin_across_root_seeds(tmp_path: Path) -> None:
    _, store = run_engine(tmp_path / "run", fake_seeds(tmp_path, 3), FakeProposer(), rounds=1, fanout=4)
    assert len(store.tasks(1)) == 12
    chosen = frontier(store, 2, cap=3, run_seed=0)
    assert sorted(row.root_id for row in chosen) == ["seed0", "seed1", "seed2"]
    assert [r.id for r in chosen] == [r.id for r in frontier(store, 2, cap=3, run_seed=0)]


def test_acceptance_realigns_limits_and_labels_from_this_tasks_own_measures(tmp_path: Path) -> None:
    seeds = tmp_path / "seeds"
    write_task(
        seeds,
        name="seed0",
        solve="touch /app/seed0\n",
        tests={"test_outputs.py": touch_test("/app/seed0")},
        instruction="Create /app/seed0.\n",
        toml_extra='[metadata.solve_rate.llm-m]\nrate = 0.0\nagent = "llm"\nmodel = "m"\nk = 8\n',
    )
    _, store = run_engine(tmp_path / "run", seeds, FakeProposer(), rounds=1, fanout=1)
    seed, child = (Task.load(tmp_path / "run" / store.tasks(r)[0].path).config for r in (0, 1))
    # The seed was measured by an agent on itself: that rate labels it; its own 60 s limits are the floor.
    assert (seed.metadata.difficulty, seed.metadata.difficulty_source) == ("hard", "llm-m")
    assert seed.agent.timeout_sec is not None and seed.agent.timeout_sec >= 60 and seed.agent.timeout_sec % 60 == 0
    # The child copied the seed's table and limits: the rate is dropped (no agent ran on the child),
    # the label comes from its size, and its limits are its own, never below the seed's.
    assert child.metadata.solve_rate is None
    assert (child.metadata.difficulty, child.metadata.difficulty_source) == ("easy", "size")
    assert child.agent.timeout_sec is not None and child.agent.timeout_sec >= seed.agent.timeout_sec
    assert child.verifier.timeout_sec >= seed.verifier.timeout_sec == 120
    metrics = child.metadata.metrics
    assert metrics is not None and metrics.test_sec is not None and store.tasks(1)[0].test_sec == metrics.test_sec


def test_a_childs_seed_follows_its_parents_lineage_not_its_code_bytes(tmp_path: Path) -> None:
    def task(solve: str, instruction: str, round_: int = 2) -> Task:
        loaded = Task.load(
            write_task(tmp_path / f"t{len(list(tmp_path.iterdir()))}", solve=solve, instruction=instruction)
        )
        loaded.config.metadata.lineage = Lineage(
            root="seeds/tiny", round=round_, history=[HistoryStep(name="csv-group-totals", consumes=["/app/a.csv"])]
        )
        return loaded

    laid_out = child_seed_key(3, task("echo hello  >  /app/out.txt\n", "Write hello.\n"), 0)
    assert laid_out == child_seed_key(3, task("echo hello > /app/out.txt\n", "Write hello.\n"), 0)
    assert laid_out != child_seed_key(3, task("echo hello > /app/out.txt\n", "Write hello twice.\n"), 0)
    assert laid_out != child_seed_key(3, task("echo hello > /app/out.txt\n", "Write hello.\n"), 1)
    assert child_seed_key(1, task("echo hello\n", "Write hello.\n", round_=0), 0) == ""
