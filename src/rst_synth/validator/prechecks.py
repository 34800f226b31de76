"""What a child's new steps must contain, judged without a container: a command that does work, and
a test module that asserts something. A candidate without either cannot be accepted, so it is
rejected before a build or a paid model call is spent on it. Pure functions, for every proposer.
"""

from __future__ import annotations

import ast
import re

from rst_synth.task import Task, TaskPaths
from rst_synth.validator.models import Reason

_NO_WORK = re.compile(
    r"""^(?:
        (?:set|shopt|:)(?:\s[^;&|<>`]*)?         # shell options, the null command
      | true | exit(?:\s+\d+)?                  # succeed or stop, nothing made
      | (?:export\s+|readonly\s+|declare(?:\s+-\w+)*\s+|local\s+)?
        [A-Za-z_][A-Za-z0-9_]*=[^;&|<>`()\s]*    # a plain assignment
    )\s*;?$""",
    re.VERBOSE,
)
"""A line that runs nothing which could produce a result."""


def runs_a_command(script: str) -> bool:
    """True when some line of `script` is more than a comment, a blank, `set`/`shopt`, `:`, `true`,
    `exit` or a plain variable assignment (models echo their instructions back as `#` lines)."""
    for line in script.splitlines():
        code = line.strip()
        if code and not code.startswith("#") and ("$(" in code or not _NO_WORK.match(code)):
            return True
    return False


def asserts_something(source: str) -> bool:
    """True when the module has an `assert` statement, an `assert*` call (unittest style) or a
    `pytest.raises`/`pytest.fail`; also True when it does not parse (the compile check says why)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return True
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name.startswith("assert") or name in ("raises", "fail"):
                return True
    return False


def new_step_problem(task: Task) -> tuple[Reason, str] | None:
    """The first step this task added ([[metadata.lineage.added]]) that runs no command or whose test
    module asserts nothing; None for seeds and for children whose steps all do both."""
    lineage = task.config.metadata.lineage
    if lineage is None or not lineage.added:
        return None
    solve = task.files.get(TaskPaths.SOLVE, b"").decode("utf-8", errors="replace").splitlines()
    for record in lineage.added:
        first, last = record.solution_lines
        if not runs_a_command("\n".join(solve[first - 1 : last])):
            return (
                Reason.NO_NEW_COMMAND,
                f"{TaskPaths.SOLVE} lines {first}-{last} (step {record.tag}): no command, "
                "only comments, blank lines, `set`, `:` or assignments",
            )
        module = task.files.get(record.test_module)
        if module is not None and not asserts_something(module.decode("utf-8", errors="replace")):
            return (
                Reason.NO_ASSERTION,
                f"{record.test_module} (step {record.tag}): no assert statement, assert* call or pytest.raises",
            )
    return None
