"""The acceptance contract against the real Docker engine."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from rst_synth.validator import PIPELINE_CHECKS, Check, Reason, ValidationReport, Validator, ValidatorConfig, Verdict
from tests.support.docker import our_containers, run_async
from tests.support.tasks import GREETING_TEST, load

pytestmark = pytest.mark.docker


def validate(task_dir, parent_dir=None, **config) -> ValidationReport:
    task = load(task_dir)
    parent = load(parent_dir) if parent_dir else None
    return run_async(lambda sandbox: Validator(sandbox, ValidatorConfig(**config)).validate(task, parent))


def test_good_task_is_accepted_with_figures(task_factory) -> None:
    report = validate(task_factory(solve="mkdir -p /app\nfor w in hello; do echo $w; done > /app/out.txt\n"))
    assert report.accepted, report.first_failure
    engine_checks = (Check.PROPOSE, *PIPELINE_CHECKS)  # the proposer's and the candidate pipeline's
    assert [c.check for c in report.checks] == [c for c in Check if c not in engine_checks]
    assert report.result(Check.PARENT).reason is Reason.NO_PARENT
    assert report.figures.solution_lines == 3  # set -e, mkdir, the loop
    # set -e, mkdir, one echo: xtrace sees at least these
    assert report.figures.executed_commands is not None and report.figures.executed_commands >= 3
    assert report.figures.oracle_sec is not None


class CountingSandbox:
    """The real sandbox, counting the containers open at once."""

    def __init__(self, sandbox: Any) -> None:
        self.sandbox, self.open, self.most = sandbox, 0, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sandbox, name)

    @asynccontextmanager
    async def container(self, image: str, limits: Any) -> AsyncIterator[Any]:
        async with self.sandbox.container(image, limits) as box:
            self.open += 1
            self.most = max(self.most, self.open)
            try:
                yield box
            finally:
                self.open -= 1


def test_a_whole_solution_determinism_run_waits_for_the_oracle(task_factory) -> None:
    # Beside it, both runs would stamp the same seconds into their outputs, and an output that
    # varies from run to run (a wheel's timestamps) would look stable to the parent-outputs check.
    task = load(task_factory(solve="sleep 2\necho hello > /app/out.txt\n"))
    counting: list[CountingSandbox] = []

    async def work(sandbox: Any) -> ValidationReport:
        counting.append(CountingSandbox(sandbox))
        return await Validator(counting[0], ValidatorConfig(max_containers=3)).validate(task)

    report = run_async(work)
    assert report.accepted, report.first_failure
    assert counting[0].most == 2  # oracle and nop, then determinism


def test_tests_passing_untouched_environment_rejected_by_nop(task_factory) -> None:
    always = "def test_nothing():\n    assert True\n"
    report = validate(task_factory(tests={"test_outputs.py": always}))
    assert not report.accepted
    assert report.first_failure.check is Check.NOP
    assert report.first_failure.reason is Reason.NOP_PASSES


def test_random_outcome_rejected_by_determinism(task_factory) -> None:
    # Passes with probability 1/2 per run; 10 reruns make a pass of all of them a 1/1024 event.
    flaky = "if [ $(( $(od -An -N1 -tu1 /dev/urandom) % 2 )) -eq 0 ]; then echo hello > /app/out.txt; fi\n"
    task_dir = task_factory(solve=flaky)
    for _ in range(10):
        report = validate(task_dir, determinism_runs=10)
        if report.result(Check.ORACLE).passed:
            break
    assert report.result(Check.ORACLE).passed
    determinism = report.result(Check.DETERMINISM)
    assert (determinism.verdict, determinism.reason) == (Verdict.FAIL, Reason.NONDETERMINISTIC)
    assert not report.accepted


def test_child_whose_parent_solution_already_passes_rejected(task_factory) -> None:
    parent = task_factory(name="parent")
    lazy_child = task_factory(name="child", solve="echo hello > /app/out.txt\necho extra > /app/extra.txt\n")
    report = validate(lazy_child, parent)
    assert report.first_failure.check is Check.PARENT
    assert report.first_failure.reason is Reason.PARENT_PASSES

    # What the quality checks ask of a child too: the instruction names the new file, the test reads it.
    extra_test = GREETING_TEST + '\ndef test_extra():\n    assert Path("/app/extra.txt").read_text() == "extra\\n"\n'
    real_child = task_factory(
        name="child2",
        solve="echo hello > /app/out.txt\necho extra > /app/extra.txt\n",
        tests={"test_outputs.py": extra_test},
        instruction="Write the word hello to /app/out.txt and the word extra to /app/extra.txt.\n",
    )
    report = validate(real_child, parent)
    assert report.accepted, report.first_failure
    assert report.result(Check.PARENT).passed


def test_solution_that_needs_the_network_fails(task_factory) -> None:
    needs_net = "apt-get update -qq\napt-get install -y -qq jq\njq -n '\"hello\"' -r > /app/out.txt\n"
    report = validate(task_factory(solve=needs_net))
    assert report.first_failure.check is Check.ORACLE
    assert report.first_failure.reason is Reason.TESTS_FAILED
    assert "--- solve.sh ---" in report.first_failure.output_tail


def test_solution_past_its_timeout_is_killed_and_removed(task_factory) -> None:
    slow = task_factory(solve="sleep 120\necho hello > /app/out.txt\n", toml_extra="")
    (slow / "task.toml").write_text(
        (slow / "task.toml").read_text().replace("[agent]\ntimeout_sec = 60", "[agent]\ntimeout_sec = 3")
    )
    report = validate(slow)
    oracle = report.result(Check.ORACLE)
    assert (oracle.verdict, oracle.reason) == (Verdict.FAIL, Reason.SOLUTION_TIMEOUT)
    assert oracle.duration_sec < 60
    assert our_containers() == []


def test_missing_reward_file_counts_as_zero(task_factory) -> None:
    report = validate(task_factory(test_sh="#!/bin/bash\npython3 -m pytest -q /tests\n"))
    oracle = report.result(Check.ORACLE)
    assert (oracle.verdict, oracle.reason, oracle.reward) == (Verdict.FAIL, Reason.NO_REWARD_FILE, 0.0)
    nop = report.result(Check.NOP)
    assert nop.verdict is Verdict.PASS and "no reward file" in nop.detail


def test_build_failure_is_reported_with_log(task_factory) -> None:
    report = validate(task_factory(dockerfile="FROM debian:bookworm-slim\nRUN exit 3\n"))
    build = report.result(Check.BUILD)
    assert (build.verdict, build.reason) == (Verdict.FAIL, Reason.BUILD_FAILED)
    assert report.result(Check.ORACLE).verdict is Verdict.SKIP


def test_image_with_a_non_root_user_is_validated(task_factory) -> None:
    from tests.support.tasks import BASE_DOCKERFILE

    dockerfile = BASE_DOCKERFILE + "RUN useradd -m agent && chown agent /app\nUSER agent\n"
    report = validate(task_factory(dockerfile=dockerfile))
    assert report.accepted, report.first_failure
