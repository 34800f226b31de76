"""What validation returns: a verdict per check, with a machine-readable reason."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from rst_synth.task import Figures, SolverEvidence


class Check(StrEnum):
    """Where a candidate can be stopped: making it, then the acceptance contract's checks in the
    order they run."""

    PROPOSE = "propose"
    """The proposer could not make a candidate (nothing applies, a malformed model reply, ...)."""
    STATIC = "static"
    BUILD = "build"
    ORACLE = "oracle"
    NOP = "nop"
    DETERMINISM = "determinism"
    PARENT = "parent"
    # The quality checks (validator/quality.py): children only, once every check above passed.
    INSTRUCTION_PATHS = "instruction_paths"
    """Every path the new tests read is named by the instruction."""
    REDUNDANCY = "redundancy"
    """No new output is a copy of another file."""
    DEGENERATE = "degenerate"
    """No new output is empty of information (validator/degenerate.py)."""
    PARENT_OUTPUTS = "parent_outputs"
    """The new steps leave the files the parent's tests read as the parent's solution left them."""
    STEPS = "steps"
    """Each new step is needed: without it the tests fail."""
    MUTATION = "mutation"
    """The tests notice a new output deleted or changed."""
    TOLERANCE = "tolerance"
    """The tests accept the outputs written another way their contracts allow, and the services started
    again in an equivalent way (validator/tolerance.py)."""
    SECOND_SOLUTION = "second_solution"
    """By the engine, with the llm proposer: a second model call writes new steps from the child's
    instruction and the parent's final state alone, and the child's tests must pass on them."""
    NOVELTY = "novelty"
    """Judged by the engine against every accepted task of the run, not by the validator."""
    SOLVABLE = "solvable"
    """Optional, by the engine: an agent attempts the accepted child (`rst synth --solver-model`)."""


QUALITY_CHECKS = (
    Check.INSTRUCTION_PATHS,
    Check.REDUNDANCY,
    Check.DEGENERATE,
    Check.PARENT_OUTPUTS,
    Check.STEPS,
    Check.MUTATION,
    Check.TOLERANCE,
)
"""The checks of validator/quality.py, validator/degenerate.py, validator/mutation.py and
validator/tolerance.py, in the order they run."""

PIPELINE_CHECKS = (Check.SECOND_SOLUTION, Check.NOVELTY, Check.SOLVABLE)
"""The candidate pipeline's own checks (engine/checks.py), after the validator's: never in its report."""


class Verdict(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    SKIP = "skip"
    """Not run: an earlier check failed, or it does not apply (no parent)."""
    ERROR = "error"
    """The sandbox failed, not the task: retrying may help."""


class Reason(StrEnum):
    """Why a check ended as it did; what a repair step is told. One list for the validator, the
    proposers, the store and the repair hints (docs/validation.md lists which check gives which)."""

    OK = "ok"
    # propose: the proposer made no candidate
    NO_APPLICABLE_OPERATOR = "no_applicable_operator"
    PARENT_SOLUTION_FAILED = "parent_solution_failed"
    LLM_ERROR = "llm_error"
    TRUNCATED = "truncated"
    NO_CODE_BLOCK = "no_code_block"
    MISSING_BLOCK = "missing_block"
    WRONG_LANGUAGE = "wrong_language"
    EMPTY_BLOCK = "empty_block"
    INVALID_BASH = "invalid_bash"
    INVALID_PYTHON = "invalid_python"
    INVALID_TOML = "invalid_toml"
    INVALID_DOCKERFILE = "invalid_dockerfile"
    REPAIR_UNCHANGED = "repair_unchanged"
    """A repair returned the candidate it was asked to repair, unchanged: not validated again."""
    SANDBOX_FAILED = "sandbox_failed"
    """The engine failed while the proposer used it (discovery): not the task's fault."""
    VERIFIER_NOT_EXTENDABLE = "verifier_not_extendable"
    """The parent's tests/test.sh runs no pytest command, so a child's new test modules would never run."""
    # the acceptance contract
    BAD_TASK = "bad_task"
    """A seed directory that does not load (a missing file, a malformed task.toml)."""
    MISSING_FILE = "missing_file"
    EMPTY_INSTRUCTION = "empty_instruction"
    SOLUTION_IN_INSTRUCTION = "solution_in_instruction"
    BASH_SYNTAX = "bash_syntax"
    TESTS_DO_NOT_COMPILE = "tests_do_not_compile"
    NO_TESTS = "no_tests"
    NO_NEW_COMMAND = "no_new_command"
    """The child's new steps are only comments, `set`, `:` or assignments (validator/prechecks.py)."""
    NO_ASSERTION = "no_assertion"
    """The child's new test module asserts nothing."""
    COPIES_SOLUTION = "dockerfile_copies_solution"
    COPIES_TESTS = "dockerfile_copies_tests"
    BUILD_FAILED = "build_failed"
    BUILD_TIMEOUT = "build_timeout"
    SOLUTION_TIMEOUT = "solution_timeout"
    VERIFIER_TIMEOUT = "verifier_timeout"
    # a limit of the container stopped the solution or the tests (sandbox.Breach, same values)
    DISK_LIMIT = "disk_limit"
    """It wrote past the container's disk limit (task.toml storage_mb, else the sandbox's default)."""
    MEMORY_LIMIT = "memory_limit"
    """The kernel killed one of its processes for going past the memory limit."""
    PIDS_LIMIT = "pids_limit"
    """It held every process slot of the container (a fork bomb) or had a fork refused there."""
    CONTAINER_DIED = "container_died"
    """The container stopped while the check ran: something inside it ended it."""
    VERIFIER_TAMPERED = "verifier_tampered"
    """The solution touched the verifier's toolchain (interpreter, pytest, start-up files, PATH, pytest's
    configuration) or its reward (harness/tamper.py, harness/verifier.py): the reward is refused."""
    TESTS_FAILED = "tests_failed"
    NO_REWARD_FILE = "no_reward_file"
    NOP_PASSES = "tests_pass_without_work"
    NONDETERMINISTIC = "nondeterministic"
    PARENT_PASSES = "parent_solution_passes"
    PARENT_MISMATCH = "parent_mismatch"
    INSTRUCTION_GAP = "instruction_gap"
    """A path the new tests read appears nowhere in the instruction."""
    REDUNDANT_OUTPUT = "redundant_output"
    """A new output has the content of a file present after the parent's solution, or of another new output."""
    DEGENERATE_OUTPUT = "degenerate_output"
    """A new output carries no information: a table with a header and no rows, an empty JSON array or
    object, rows whose every numeric column holds one value."""
    CHANGES_PARENT_OUTPUT = "changes_parent_output"
    """The new steps changed or deleted a file the parent's tests read."""
    STEP_UNNECESSARY = "step_unnecessary"
    """The tests pass with one of the new steps left out."""
    WEAK_TESTS = "weak_tests"
    """A new output can be deleted, or changed by every small edit tried, and the tests still pass."""
    TESTS_TOO_STRICT = "tests_too_strict"
    """The tests fail on an output written another way its contract allows, or on a service started again in an
    equivalent way (validator/tolerance.py)."""
    SECOND_SOLUTION_FAILED = "second_solution_failed"
    """The child's tests failed on a second solution written from its instruction alone: the instruction
    is unclear, the tests too strict, or the second solution wrong."""
    SECOND_SOLUTION_DISPUTED = "second_solution_disputed"
    """A skip: the repair judged the failed second solution wrong and kept the child unchanged."""
    NEAR_DUPLICATE = "near_duplicate"
    UNSOLVED = "unsolved"
    """No attempt of the solver agent solved the child (with --require-solvable)."""
    TOO_EASY = "too_easy"
    """The solver agent solved the child in more than --max-solve-rate of its attempts."""
    NO_PARENT = "no_parent"
    EARLIER_CHECK_FAILED = "earlier_check_failed"
    SANDBOX_ERROR = "sandbox_error"


class CheckResult(BaseModel):
    check: Check
    verdict: Verdict
    reason: Reason
    detail: str = ""
    """One line for people: what exactly went wrong."""
    duration_sec: float = 0.0
    reward: float | None = None
    """The reward test.sh wrote, where the check ran the verifier."""
    output_tail: str = ""
    """End of the relevant output (solve.sh, test.sh, build log)."""
    evidence: SolverEvidence | None = Field(default=None, exclude=True)
    """The solver's attempts behind a `too_easy` result, for the repair prompt; in memory only (the
    solvable check runs on the driver), so a report's JSON is unchanged."""
    steps: str = ""
    """The new steps the check itself wrote and ran (second_solution: the second call's); "" for the others."""

    @property
    def passed(self) -> bool:
        return self.verdict is Verdict.PASS


class ValidationReport(BaseModel):
    task: str
    path: str | None = None
    parent: str | None = None
    image: str | None = None
    checks: list[CheckResult] = Field(default_factory=list)
    figures: Figures = Field(default_factory=Figures)
    """What validation measured: solution lines, executed commands, oracle and build time."""
    duration_sec: float = 0.0

    @property
    def accepted(self) -> bool:
        return all(c.verdict in (Verdict.PASS, Verdict.SKIP) for c in self.checks) and any(
            c.check is Check.ORACLE and c.passed for c in self.checks
        )

    @property
    def first_failure(self) -> CheckResult | None:
        return next((c for c in self.checks if c.verdict in (Verdict.FAIL, Verdict.ERROR)), None)

    def result(self, check: Check) -> CheckResult | None:
        return next((c for c in self.checks if c.check is check), None)

    def result_of(self, name: str) -> CheckResult:
        """The result of a check by its name; KeyError when it did not run."""
        found = self.result(Check(name))
        if found is None:
            raise KeyError(name)
        return found

    def summary(self) -> dict[str, object]:
        """JSON-friendly form including the derived verdict."""
        data = self.model_dump(mode="json")
        data["accepted"] = self.accepted
        failure = self.first_failure
        data["rejection"] = None if failure is None else {"check": failure.check.value, "reason": failure.reason.value}
        return data


class ValidatorConfig(BaseModel):
    """How validation runs; the contract itself is fixed."""

    default_solve_timeout_sec: float = Field(default=600.0, gt=0)
    """Time for solve.sh when task.toml sets no [agent].timeout_sec."""
    max_containers: int = Field(default=4, ge=1)
    """Containers at work at once across all validations of this validator. A child's oracle
    container also waits, idle and outside this count, while the determinism and parent checks run,
    so that the quality checks can reuse it."""
    determinism_runs: int = Field(default=1, ge=0)
    """Extra oracle runs, each in another fresh container, that must all reach reward 1 (0: off)."""
    quality: bool = True
    """Run the quality checks (validator/quality.py, validator/mutation.py) on children."""
    tolerance: bool = True
    """Run the tolerance check (validator/tolerance.py) among the quality checks."""
    every_failure: bool = False
    """After a quality check of the first four fails, still run the steps, mutation and tolerance checks, so
    that a repair hears of every problem at once (the llm proposer's); off, they are skipped to save the cost."""
    max_mutated_outputs: int = Field(default=12, ge=1)
    """New outputs the mutation check edits at most (the first by path)."""
    keep_states: bool = False
    """Keep each validated task's final state (validator/kept.py) and start its children's parent,
    determinism and steps checks from it, and let the mutation check judge an edit by the new test
    modules first (validator/mutation.py); off, every check runs from scratch. `rst synth` turns it on."""
