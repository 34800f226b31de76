"""The solver steers the proposer: a child the solver finds too easy is repaired with its evidence
(solved k of K, the commands of a solved attempt) in the prompt, and a parent the solver attempted
is described in the extend prompt with what its attempts in the store did. The llm proposer talks to
the fake OpenAI server; validation and the solver's attempts run on the fake sandbox."""

from __future__ import annotations

import asyncio
from pathlib import Path, PurePosixPath

from rst_synth.agents import Ended, Shell, TrajectoryRecorder
from rst_synth.agents.atif import ObservationResult, ToolCallRecord
from rst_synth.engine import CandidatePipeline, Engine, SynthConfig
from rst_synth.engine.candidate import CandidateOutcome
from rst_synth.engine.checks import SolvableCheck
from rst_synth.evaluation.solver import Solver
from rst_synth.executors import LocalExecutor
from rst_synth.proposers import Usage
from rst_synth.store import RunPaths, Store
from rst_synth.task import Task, TaskPaths
from rst_synth.validator import Check, Reason, ValidationReport, Validator
from tests.support.fakes import FakeSandbox
from tests.support.llm_proposer import FakeOpenAI, fence, make_proposer_for, stage_of, stage_responder
from tests.support.tasks import write_task

LOOK = ("ls -la /app", "head -n 3 /app/out.txt")
SOLVE = f"bash {PurePosixPath(TaskPaths.CONTAINER_SOLUTION_DIR) / 'solve.sh'}"

STEPS = "echo shout > /app/r1.txt\n"
TESTS = (
    'from pathlib import Path\n\n\ndef test_shout():\n    assert Path("/app/r1.txt").read_text().strip() == "shout"\n'
)
ADDENDUM = "Then write the word shout to `/app/r1.txt`.\n"


REPLIES = {
    "extend": fence("bash", "solution/steps.sh", STEPS),
    "realign_tests": fence("python", "tests/test_step_r1.py", TESTS),
    "realign_instruction": fence("markdown", "instruction_addendum.md", ADDENDUM),
    "repair": fence("bash", "solution/steps.sh", "echo whisper > /app/r1.txt\n"),
}


class ScriptedSolver:
    """An agent that looks around, then runs the reference solution: it solves every attempt."""

    name = "scripted"
    model = "scripted-model"

    async def work(self, task: Task, shell: Shell, record: TrajectoryRecorder, *, seed: int) -> Ended:
        record.user(task.instruction)
        await shell.put(task.files_under(TaskPaths.SOLUTION_DIR), TaskPaths.CONTAINER_SOLUTION_DIR)
        for n, command in enumerate((*LOOK, SOLVE), start=1):
            result = await shell.run(command, login=False)
            call = f"call_{n}"
            record.agent(
                "",
                calls=[ToolCallRecord(tool_call_id=call, function_name="bash", arguments={"command": command})],
                results=[ObservationResult(source_call_id=call, content=result.output)],
            )
        return "done"

    async def close(self) -> None:
        return None


class Reports:
    """The pipeline's events: keeps each validation's report."""

    def __init__(self) -> None:
        self.reports: list[ValidationReport] = []

    def spent(self, stage: str, usage: Usage) -> None:
        return None

    def proposed(self) -> None:
        return None

    def validated(self, attempt: int, report: ValidationReport) -> None:
        self.reports.append(report)


def test_a_too_easy_childs_repair_prompt_carries_the_solvers_evidence(tmp_path: Path) -> None:
    parent = Task.load(write_task(tmp_path / "tasks"))
    sandbox = FakeSandbox()
    validator = Validator(sandbox)
    solver = Solver(ScriptedSolver(), LocalExecutor(sandbox, validator), k=2, out_dir=tmp_path / "solver", max_rate=0.5)
    replies = REPLIES

    events = Reports()

    async def run() -> CandidateOutcome:
        proposer = make_proposer_for(server, tmp_path / "cache")
        pipeline = CandidatePipeline(proposer, validator, repairs=1, checks=[SolvableCheck(solver)])
        try:
            return await pipeline.run(parent, seed=5, events=events)
        finally:
            await proposer.close()
            await proposer.llm().close()

    with FakeOpenAI() as server:
        server.responder = stage_responder(replies)
        outcome = asyncio.run(run())
    stages = [stage_of(r) for r in server.requests]
    assert stages == ["extend", "realign_tests", "realign_instruction", "repair"]
    first = events.reports[0].first_failure  # the proposal's validation: the solver's verdict
    assert first is not None and (first.check, first.reason) == (Check.SOLVABLE, Reason.TOO_EASY)
    assert outcome.attempts == 2  # the repair was validated in turn
    prompt = server.requests[3]["messages"][-1]["content"]
    assert "- reason: too_easy" in prompt
    assert "It solved the child in 2 of 2 attempts, running 3, 3 commands" in prompt
    shown = [prompt.index(command) for command in (*LOOK, SOLVE)]  # the commands of a solved attempt, in order
    assert shown == sorted(shown)
    assert "a fault it must diagnose" in prompt  # asks for a harder step, not only a fix


def test_the_extend_prompt_of_a_parent_the_solver_attempted_says_how_it_did(tmp_path: Path) -> None:
    seeds = tmp_path / "seeds"
    write_task(seeds, name="seed0")
    paths = RunPaths(tmp_path / "run")
    paths.root.mkdir(parents=True)
    store = Store(paths.db)
    sandbox = FakeSandbox()
    validator = Validator(sandbox)
    solver = Solver(ScriptedSolver(), LocalExecutor(sandbox, validator), k=2, out_dir=paths.root / "solver")
    config = SynthConfig(seeds_dir=str(seeds), rounds=2, fanout=1, repairs=0)

    async def run() -> str:
        proposer = make_proposer_for(server, tmp_path / "cache")
        try:
            return await Engine(config, paths, store, proposer, validator, solver=solver).run()
        finally:
            await proposer.close()
            await proposer.llm().close()

    with FakeOpenAI() as server:
        server.responder = stage_responder(REPLIES)
        assert asyncio.run(run()) == "done"
    (child,) = store.tasks(1)  # accepted in round 1, with the solver's rate in its task.toml
    assert "evidence" not in (paths.root / child.path / "task.toml").read_text()
    extends = [r["messages"][-1]["content"] for r in server.requests if stage_of(r) == "extend"]
    assert len(extends) == 2
    assert "How agents did on the parent" not in extends[0]  # the seed: no solver ran on it
    said = extends[1]
    assert "scripted (solver-scripted-model) solved it in 2 of 2 attempts, running 3, 3 commands" in said
    shown = [said.index(command) for command in (*LOOK, SOLVE)]  # read from the attempts in the store
    assert shown == sorted(shown)
