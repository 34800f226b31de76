"""The second-solution check (engine/second.py): its prompt shows the child's instruction and the
parent, never the child's steps or tests; the model call goes to a scripted server on 127.0.0.1 and
the trial to the fake sandbox, through the check's own trial (validator/second.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from rst_synth.engine import CandidatePipeline, NoveltyCheck, NoveltyIndex, SecondSolutionCheck
from rst_synth.engine.second import STAGE
from rst_synth.proposers import Usage
from rst_synth.proposers.llm import LLMProposer, Parts, build_child
from rst_synth.proposers.llm.second import SecondSolutionWriter
from rst_synth.task import Task
from rst_synth.validator import Check, Reason, ValidationReport, Validator, ValidatorConfig, Verdict
from rst_synth.validator.second import SecondTrial, sandbox_trial
from rst_synth.validator.trial import TrialOutcome
from tests.support.fakes import FakeSandbox
from tests.support.llm_proposer import FakeOpenAI, fence, make_proposer_for, stage_of, stage_responder
from tests.support.tasks import write_task

STEPS = "echo HELLO > /app/shout.txt\necho 5 > /app/size.txt\n"
ADDENDUM = (
    "Then write `/app/shout.txt` holding the word of `/app/out.txt` in upper case, and `/app/size.txt` "
    "noting how many characters that word has.\n"
)
# The size's format is the tests' own choice: the instruction never says a bare number.
STRICT_TESTS = (
    "from pathlib import Path\n\n\n"
    "def test_shout():\n"
    '    assert Path("/app/shout.txt").read_text().strip() == "HELLO"\n\n\n'
    "def test_size():\n"
    '    assert Path("/app/size.txt").read_text().strip() == "5"\n'
)
LOOSE_TESTS = (
    "from pathlib import Path\n\n\n"
    "def test_shout():\n"
    '    assert Path("/app/shout.txt").read_text().strip() == "HELLO"\n\n\n'
    "def test_size():\n"
    '    assert Path("/app/size.txt").exists()\n'
)
SECOND_STEPS = "echo HELLO > /app/shout.txt\necho 5 characters > /app/size.txt\n"


def _parent(tmp_path: Path) -> Task:
    written = tmp_path / "tasks" / "tiny"
    return Task.load(written if written.is_dir() else write_task(tmp_path / "tasks"))


def _replies(tests: str = STRICT_TESTS, second: str = SECOND_STEPS, repair: str = "") -> dict[str, Any]:
    return {
        "extend": fence("bash", "solution/steps.sh", STEPS),
        "realign_tests": fence("python", "tests/test_step_r1.py", tests),
        "realign_instruction": fence("markdown", "instruction_addendum.md", ADDENDUM),
        "second_solution": "My steps.\n\n" + fence("bash", "solution/steps.sh", second),
        "repair": repair or fence("python", "tests/test_step_r1.py", LOOSE_TESTS),
    }


class Trials:
    """The check's own trial on the fake sandbox, noting every solution it was given."""

    def __init__(self) -> None:
        self.run: SecondTrial = sandbox_trial(FakeSandbox())
        self.solutions: list[str] = []

    async def __call__(self, task: Task, solution: dict[str, bytes]) -> TrialOutcome:
        self.solutions.append(solution["solve.sh"].decode())
        return await self.run(task, solution)


class Spent:
    """The candidate's events: what each stage spent, and every attempt's report."""

    def __init__(self) -> None:
        self.stages: list[tuple[str, Usage]] = []
        self.reports: list[ValidationReport] = []

    def spent(self, stage: str, usage: Usage) -> None:
        self.stages.append((stage, usage))

    def proposed(self) -> None:
        pass

    def validated(self, attempt: int, report: ValidationReport) -> None:
        self.reports.append(report)


def _run(server: FakeOpenAI, tmp_path: Path, trials: Trials, events: Spent, repairs: int = 1) -> Any:
    async def work() -> Any:
        proposer = make_proposer_for(server, tmp_path / "cache")
        check = SecondSolutionCheck(SecondSolutionWriter(proposer), trials)
        validator = Validator(FakeSandbox(), ValidatorConfig(quality=False))
        pipeline = CandidatePipeline(proposer, validator, repairs=repairs, checks=[check, NoveltyCheck(NoveltyIndex())])
        try:
            return await pipeline.run(_parent(tmp_path), seed=3, events=events)
        finally:
            await proposer.llm().close()

    return asyncio.run(work())


def test_the_prompt_shows_the_childs_instruction_never_its_steps_or_tests(tmp_path: Path) -> None:
    parent = _parent(tmp_path)
    steps = "grep -c SECRET_STEP_MARKER /app/out.txt > /app/count.txt\n"
    tests = "def test_secret():\n    assert open('/app/count.txt').read() == 'SECRET_TEST_MARKER'\n"
    apt = "RUN apt-get update && apt-get install -y --no-install-recommends jq"
    parts = Parts(theme="reporting", tag="r1", steps=steps, tests=tests, addendum=ADDENDUM, dockerfile_append=apt)
    child = build_child(parent, parts)
    proposer = LLMProposer(None)
    chat = asyncio.run(SecondSolutionWriter(proposer).chat(parent, child))
    system, user = chat[0]["content"], chat[1]["content"]
    assert "## STAGE: second_solution" in user and ADDENDUM.strip() in user
    assert user.count(parent.instruction.strip()) == 1  # the parent's instruction once, then what the child adds
    assert "appends these lines" in user and apt in user  # the child's image, which the steps run in
    assert parent.solve_sh.strip() in user  # the parent's final state, as the extend stage shows it
    assert "SECRET_STEP_MARKER" not in user + system and "SECRET_TEST_MARKER" not in user + system
    assert "test_secret" not in user and "tests/test_step_r1.py" not in user
    assert system == proposer._env.get_template("system.j2").render().strip() + "\n"  # the stages' own


def test_a_second_solution_that_passes_leaves_the_child_accepted_and_its_call_is_the_second_stage(
    tmp_path: Path,
) -> None:
    trials, events = Trials(), Spent()
    with FakeOpenAI() as server:
        server.responder = stage_responder(_replies(tests=LOOSE_TESTS))
        outcome = _run(server, tmp_path, trials, events)
        asked = [stage_of(r) for r in server.requests]
    assert outcome.accepted, outcome.rejection
    assert asked == ["extend", "realign_tests", "realign_instruction", "second_solution"]
    assert [c.check for c in outcome.checks] == [Check.SECOND_SOLUTION, Check.NOVELTY]
    assert outcome.checks[0].verdict is Verdict.PASS and outcome.checks[0].steps == SECOND_STEPS
    [solution] = trials.solutions  # the parent's solution, then the second steps: never the child's own
    assert solution.startswith(_parent(tmp_path).solve_sh.rstrip()) and solution.endswith(SECOND_STEPS)
    assert STEPS not in solution
    second = [usage for stage, usage in events.stages if stage == STAGE]
    assert [(u.calls, u.tokens_in, u.tokens_out) for u in second] == [(1, 1000, 200)]


def test_a_failure_on_an_over_strict_test_shows_the_repair_both_then_the_loosened_child_passes(
    tmp_path: Path,
) -> None:
    trials, events = Trials(), Spent()
    with FakeOpenAI() as server:
        server.responder = stage_responder(_replies())
        outcome = _run(server, tmp_path, trials, events)
        requests = server.requests
    first = events.reports[0]
    failed = first.first_failure
    assert failed is not None and failed.check is Check.SECOND_SOLUTION
    assert failed.reason is Reason.SECOND_SOLUTION_FAILED
    assert "failed: ['/app/size.txt']" in failed.output_tail and failed.steps == SECOND_STEPS
    [repair] = [r["messages"][-1]["content"] for r in requests if stage_of(r) == "repair"]
    assert "### The second solution the child's tests failed" in repair
    assert "echo 5 characters > /app/size.txt" in repair  # the second solution's steps
    assert "failed: ['/app/size.txt']" in repair  # and the test output
    assert "the tests are too strict" in repair
    # The repair loosened the test; the instruction is the same, so the cache answers the same steps.
    assert outcome.accepted, outcome.rejection
    assert outcome.proposal.task.text("tests/test_step_r1.py") == LOOSE_TESTS
    assert outcome.checks[0].verdict is Verdict.PASS and len(trials.solutions) == 2
    assert trials.solutions[0] == trials.solutions[1]
    assert [stage_of(r) for r in requests].count("second_solution") == 1
    assert [u.cached_calls for stage, u in events.stages if stage == STAGE] == [0, 1]


def test_an_unchanged_repair_after_a_failed_second_solution_disputes_it_and_the_later_checks_run(
    tmp_path: Path,
) -> None:
    trials, events = Trials(), Spent()
    unchanged = "The second solution is wrong.\n\n" + fence("python", "tests/test_step_r1.py", STRICT_TESTS)
    with FakeOpenAI() as server:
        server.responder = stage_responder(_replies(repair=unchanged))
        outcome = _run(server, tmp_path, trials, events)
    assert outcome.accepted, outcome.rejection
    second, novelty = outcome.checks
    assert (second.verdict, second.reason) == (Verdict.SKIP, Reason.SECOND_SOLUTION_DISPUTED)
    assert "judged the second solution wrong" in second.detail and novelty.passed
    assert len(trials.solutions) == 1  # the dispute runs no second trial


def test_an_unusable_second_reply_skips_the_check_and_novelty_still_runs(tmp_path: Path) -> None:
    trials, events = Trials(), Spent()
    with FakeOpenAI() as server:
        server.responder = stage_responder({**_replies(), "second_solution": "I would rather not."})
        outcome = _run(server, tmp_path, trials, events, repairs=0)
    assert outcome.accepted, outcome.rejection
    second, novelty = outcome.checks
    assert (second.verdict, second.reason) == (Verdict.SKIP, Reason.NO_CODE_BLOCK) and novelty.passed
    assert trials.solutions == [] and [stage for stage, _ in events.stages].count(STAGE) == 1
