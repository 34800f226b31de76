"""What validation returns: a verdict per check, with a machine-readable reason."""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, Field


class Check(str, Enum):
    """The checks of the acceptance contract, in the order they run."""

    STATIC = "static"
    BUILD = "build"
    ORACLE = "oracle"
    NOP = "nop"
    DETERMINISM = "determinism"
    PARENT = "parent"
    NOVELTY = "novelty"
    """Judged by the engine against every accepted task of the run, not by the validator."""


class Verdict(str, Enum):
    PASS = "pass"
    FAIL = "fail"
    SKIP = "skip"
    """Not run: an earlier check failed, or it does not apply (no parent)."""
    ERROR = "error"
    """The sandbox failed, not the task: retrying may help."""


class Reason(str, Enum):
    """Why a check ended as it did; what a repair step is told."""

    OK = "ok"
    MISSING_FILE = "missing_file"
    BAD_CONFIG = "bad_config"
    EMPTY_INSTRUCTION = "empty_instruction"
    SOLUTION_IN_INSTRUCTION = "solution_in_instruction"
    BASH_SYNTAX = "bash_syntax"
    TESTS_DO_NOT_COMPILE = "tests_do_not_compile"
    NO_TESTS = "no_tests"
    COPIES_SOLUTION = "dockerfile_copies_solution"
    COPIES_TESTS = "dockerfile_copies_tests"
    BUILD_FAILED = "build_failed"
    BUILD_TIMEOUT = "build_timeout"
    SOLUTION_TIMEOUT = "solution_timeout"
    VERIFIER_TIMEOUT = "verifier_timeout"
    TESTS_FAILED = "tests_failed"
    NO_REWARD_FILE = "no_reward_file"
    NOP_PASSES = "tests_pass_without_work"
    NONDETERMINISTIC = "nondeterministic"
    PARENT_PASSES = "parent_solution_passes"
    PARENT_MISMATCH = "parent_mismatch"
    NEAR_DUPLICATE = "near_duplicate"
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

    @property
    def passed(self) -> bool:
        return self.verdict is Verdict.PASS


class MeasuredFigures(BaseModel):
    """Figures of DESIGN section 4 measured during validation."""

    solution_lines: int | None = None
    executed_commands: int | None = None
    oracle_sec: float | None = None
    build_sec: float | None = None


class ValidationReport(BaseModel):
    task: str
    path: str | None = None
    parent: str | None = None
    image: str | None = None
    checks: list[CheckResult] = Field(default_factory=list)
    figures: MeasuredFigures = Field(default_factory=MeasuredFigures)
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
