"""The outcome of each generated test of a step run on this machine (`local_step.LocalStep`): a test that
checks a wrong solution names the tests that must fail, and the others still pass."""

from __future__ import annotations

import tempfile
import traceback
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
    only: str = "",
) -> dict[str, str]:
    """Plant the step's files below `root` (with `files`, what the parent's solution made), run its solution
    (or `solution`), then each generated test (whose name contains `only`): test name -> "passed" or
    "failed: <what failed>"."""
    local = LocalStep(step.model_copy(update={"solution": solution or step.solution}), root, folders)
    for path, content in (files or {}).items():
        local.put(path, content)
    local.plant()
    local.solve()
    imports = "".join(f"import {m}\n" for m in sorted({*step.imports, "pathlib"}))
    source = (imports + local.moved(step.tests)).splitlines()  # what LocalStep.tests runs, for the failing line
    found = {}
    for name in [n for n in local.tests() if n.startswith("test_") and only in n]:
        try:
            local.run_tests(Path(tempfile.mkdtemp(dir=root)), only=name)  # a fresh tmp_path per run
            found[name] = "passed"
        except Exception as exc:  # an assertion, or a wrong tool's output that does not even parse
            where = traceback.extract_tb(exc.__traceback__)[-1]
            line = source[where.lineno - 1].strip() if where.filename == "<string>" else where.line
            found[name] = f"failed: {type(exc).__name__} at `{line}`: {exc}"[:300]
    return found


def failed(results: dict[str, str]) -> list[str]:
    return [name for name, outcome in results.items() if outcome != "passed"]
