"""The procedural proposer as a whole: discovery, determinism, repair, chains."""

from __future__ import annotations

import pytest

from rst_synth.proposers import ProposalError, make_proposer
from rst_synth.proposers.artifacts import Kind
from rst_synth.proposers.discovery import discovery_on
from rst_synth.proposers.procedural import ProceduralConfig, ProceduralProposer
from rst_synth.proposers.procedural.proposer import draw_key
from rst_synth.task import HistoryStep, Lineage, Task, TaskPaths
from rst_synth.validator import Validator
from tests.support.docker import run_async
from tests.support.operators import discover_parent, parent_task
from tests.support.tasks import SEEDS

SEED = SEEDS / "access-log-report"


def test_registry_knows_procedural_and_rejects_unknown() -> None:
    with pytest.raises(ValueError, match="unknown proposer 'nope'"):
        make_proposer("nope")


@pytest.mark.docker
def test_discovery_finds_what_the_solution_made() -> None:
    found = discover_parent(SEED)
    by_path = {a.path: a for a in found.artifacts}
    assert by_path["/app/report/status_counts.csv"].kind is Kind.CSV
    assert by_path["/app/report/status_counts.csv"].details["header"] == ["status", "count"]
    assert by_path["/app/report/top_clients.txt"].kind is Kind.TEXT
    assert not any(by_path[p].input for p in ("/app/report/status_counts.csv", "/app/report/top_clients.txt"))
    # the image's log, named by the instruction and left as it was: an input the workflow reads
    log = by_path["/app/logs/access.log"]
    assert log.input and not log.new and log.kind is Kind.TEXT
    assert found.workdir == "/app" and "python3" in found.tools


@pytest.mark.docker
def test_same_seed_gives_byte_identical_child(tmp_path) -> None:
    parent = Task.load(SEED)

    async def twice(sandbox):  # type: ignore[no-untyped-def]
        first = await ProceduralProposer(discovery_on(sandbox)).propose(parent, seed=11)
        second = await ProceduralProposer(discovery_on(sandbox)).propose(parent, seed=11)  # fresh discovery too
        return first, second

    first, second = run_async(twice)
    a, b = first.task.save(tmp_path / "a"), second.task.save(tmp_path / "b")
    files_a = {p.relative_to(a): p.read_bytes() for p in a.rglob("*") if p.is_file()}
    files_b = {p.relative_to(b): p.read_bytes() for p in b.rglob("*") if p.is_file()}
    assert files_a == files_b
    lineage = first.task.config.metadata.lineage
    assert lineage.parent == parent.name and lineage.round == 1 and lineage.steps == first.steps
    assert first.task.solve_sh.startswith(parent.solve_sh.rstrip("\n"))
    assert first.task.config.metadata.difficulty is None and first.task.config.metadata.metrics is None


@pytest.mark.docker
def test_no_applicable_operator_is_a_proposal_error(tmp_path) -> None:
    parent = Task.load(parent_task(tmp_path, "true\n"))  # makes nothing an operator can use

    async def work(sandbox):  # type: ignore[no-untyped-def]
        return await ProceduralProposer(
            discovery_on(sandbox), ProceduralConfig(operators=["csv-group-totals"])
        ).propose(parent, seed=0)

    with pytest.raises(ProposalError, match="no_applicable_operator"):
        run_async(work)


@pytest.mark.docker
def test_two_generation_chain_grows_and_each_child_is_accepted() -> None:
    async def chain(sandbox):  # type: ignore[no-untyped-def]
        proposer, validator = ProceduralProposer(discovery_on(sandbox)), Validator(sandbox)
        parent, reports = Task.load(SEED), []
        for generation in range(2):
            proposal = await proposer.propose(parent, seed=generation)
            for attempt in range(3):
                report = await validator.validate(proposal.task, parent)
                if report.accepted:
                    break
                proposal = await proposer.repair(parent, proposal, report, attempt=attempt + 1)
            assert report.accepted, report.first_failure
            reports.append(report)
            parent = proposal.task
        return parent, reports

    last, reports = run_async(chain)
    assert last.config.metadata.lineage.round == 2
    # One document for the whole workflow: the scenario the first child took, kept, and no "Next, ..." chain.
    assert last.config.metadata.lineage.scenario == "incident-review"
    assert last.instruction.startswith("# Incident review\n") and "\nNext, " not in last.instruction
    assert "## Where the work starts" in last.instruction
    assert reports[0].figures.solution_lines < reports[1].figures.solution_lines
    assert len([f for f in last.files if f.startswith(f"{TaskPaths.TESTS_DIR}/test_step_")]) >= 2


def test_a_repair_replaces_the_step_that_wrote_the_refused_output() -> None:
    from rst_synth.proposers.procedural.proposer import _steps_writing
    from rst_synth.task import StepRecord

    solve = "setup\nmkdir -p /app/bin\ncat > /app/bin/a_next_runs\nsort /app/x.csv > /app/x_sorted.csv\n"
    added = [
        StepRecord(
            name="cron-next-runs",
            tag="r3s1",
            consumes=["/etc/cron.d/a"],
            solution_lines=(2, 3),
            instruction_lines=(1, 1),
            test_module="tests/test_step_r3s1.py",
        ),
        StepRecord(
            name="csv-sort",
            tag="r3s2",
            consumes=["/app/x.csv"],
            solution_lines=(4, 4),
            instruction_lines=(2, 2),
            test_module="tests/test_step_r3s2.py",
        ),
    ]
    redundant = "/app/bin/a_next_runs has the same content as /app/bin/b_next_runs, present after the parent's solution"
    assert _steps_writing(solve, added, redundant) == ["cron-next-runs"]
    assert _steps_writing(solve, added, "/app/x_sorted.csv: a header and no rows") == ["csv-sort"]
    assert _steps_writing(solve, added, "no path here") == []


def test_a_childs_draws_follow_its_lineage_not_its_solution_bytes() -> None:
    seed = Task.load(SEED)
    assert draw_key(seed) == seed.workflow_hash()  # a seed: its workflow, as before
    child = seed.model_copy(deep=True)
    steps = [HistoryStep(name="csv-group-totals", consumes=["/app/a.csv"], produces=["/app/b.csv"])]
    child.config.metadata.lineage = Lineage(root=seed.name, round=1, history=steps)
    relaid = child.model_copy(deep=True)
    relaid.set_text(TaskPaths.SOLVE, child.solve_sh + "\n# the same workflow, laid out anew\n", executable=True)
    assert draw_key(relaid) == draw_key(child)
    other = child.model_copy(deep=True)
    other.config.metadata.lineage = Lineage(
        root=seed.name, round=1, history=[steps[0].model_copy(update={"produces": ["/app/c.csv"]})]
    )
    assert draw_key(other) != draw_key(child)
