"""The outcome of each generated test of a step run on this machine (`local_step.LocalStep`): a test that
checks a wrong solution names the tests that must fail, and the others still pass."""

from __future__ import annotations

from pathlib import Path

from rst_synth.proposers.procedural.operator import Step
from tests.proposers.local_step import LocalStep


def outcomes(
    step: Step,
    root: Path,
    *,
    solution: str | None = None,
    files: dict[str, bytes] | None = None,
    folders: tuple[str, ...] = ("/app",),
) -> dict[str, str]:
    """Plant the step's files below `root` (with `files`, what the parent's solution made), run its solution
    (or `solution`), then each generated test: test name -> "passed" or "failed: <what failed>"."""
    local = LocalStep(step.model_copy(update={"solution": solution or step.solution}), root, folders)
    for path, content in (files or {}).items():
        local.put(path, content)
    local.plant()
    local.solve()
    found = {}
    for name in [n for n in local.tests() if n.startswith("test_")]:
        try:
            local.run_tests(root / "tmp", only=name)
            found[name] = "passed"
        except Exception as exc:  # an assertion, or a wrong tool's output that does not even parse
            found[name] = f"failed: {type(exc).__name__}: {exc}"[:300]
    return found


def failed(results: dict[str, str]) -> list[str]:
    return [name for name, outcome in results.items() if outcome != "passed"]
