"""A trial's verdict as a check result, and the small shapes every check's result takes."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from rst_synth.sandbox import SandboxError
from rst_synth.validator.models import Check, CheckResult, Reason, Verdict
from rst_synth.validator.trial import TrialOutcome


def expect(check: Check, outcome: TrialOutcome, want_solved: bool, fail_reason: Reason) -> CheckResult:
    """Turn a trial into a verdict: the oracle must reach reward 1, nop and parent must not."""
    reward = outcome.reward if outcome.reward is not None else 0.0
    tail = outcome.output_tail()
    if outcome.breach is not None:  # a container limit stopped it: rejected, whichever check this is
        detail = outcome.breach_detail or outcome.breach.value
        reason = Reason(outcome.breach)
        return CheckResult(check=check, verdict=Verdict.FAIL, reason=reason, detail=detail, output_tail=tail)
    if outcome.solve is not None and outcome.solve.timed_out:
        if not want_solved:  # a parent's solution that hangs has not solved the child
            return CheckResult(
                check=check,
                verdict=Verdict.PASS,
                reason=Reason.OK,
                reward=0.0,
                detail="solution timed out",
                output_tail=tail,
            )
        return CheckResult(
            check=check,
            verdict=Verdict.FAIL,
            reason=Reason.SOLUTION_TIMEOUT,
            reward=None,
            detail=f"solve.sh ran past {outcome.solve.duration_sec:.0f}s and was killed",
            output_tail=tail,
        )
    if outcome.verify is not None and outcome.verify.timed_out:
        return CheckResult(
            check=check,
            verdict=Verdict.FAIL,
            reason=Reason.VERIFIER_TIMEOUT,
            detail="test.sh ran past its timeout and was killed",
            output_tail=tail,
        )
    if outcome.solved == want_solved:
        detail = "" if outcome.reward is not None else "no reward file (counted as 0)"
        return CheckResult(
            check=check, verdict=Verdict.PASS, reason=Reason.OK, reward=reward, detail=detail, output_tail=tail
        )
    if want_solved and outcome.reward is None:
        fail_reason = Reason.NO_REWARD_FILE
    detail = {
        Reason.TESTS_FAILED: f"reward {reward:g} after the reference solution",
        Reason.NO_REWARD_FILE: "test.sh wrote no /logs/verifier/reward.txt or reward.json",
        Reason.NOP_PASSES: "the tests pass on the untouched environment",
        Reason.NONDETERMINISTIC: f"reward {reward:g} on a second oracle run",
        Reason.PARENT_PASSES: "the parent's solution already passes the new tests",
    }.get(fail_reason, "")
    return CheckResult(
        check=check, verdict=Verdict.FAIL, reason=fail_reason, reward=reward, detail=detail, output_tail=tail
    )


async def timed(check: Check, run: Callable[[], Awaitable[CheckResult]]) -> CheckResult:
    started = time.monotonic()
    try:
        result = await run()
    except SandboxError as exc:
        return sandbox_error(check, exc, started)
    result.duration_sec = round(time.monotonic() - started, 3)
    return result


def sandbox_error(check: Check, exc: Exception, started: float) -> CheckResult:
    return CheckResult(
        check=check,
        verdict=Verdict.ERROR,
        reason=Reason.SANDBOX_ERROR,
        detail=str(exc)[:300],
        duration_sec=time.monotonic() - started,
    )


def skipped(check: Check, reason: Reason, detail: str) -> CheckResult:
    return CheckResult(check=check, verdict=Verdict.SKIP, reason=reason, detail=detail)
