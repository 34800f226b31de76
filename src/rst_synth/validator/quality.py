"""The quality checks of a child (docs/validation.md, "The acceptance contract"): what it adds
must be work of its own, needed, checked by its tests and named by its instruction.

They judge any child, whoever made it, from the task files and the file states (sandbox/listing.py)
that the oracle, determinism and parent trials recorded around their solutions. This module holds
the checks that need no container (instruction_paths, redundancy, parent_outputs) and the step
check's solutions; the validator runs them, then `steps` and `mutation` (validator/mutation.py).

What counts as a new output: a file under the scan roots that the child's solution created or
changed in the oracle's container, unless the parent's solution, in the parent check's container,
left it with the same content, or its content differs between the oracle and a determinism run
while the parent's solution made it too (a parent output that varies from run to run). Paths with a
component starting with "." (git internals, tools' state in home folders), names ending in "-" or
"~" (backups `useradd` and editors leave) and the account databases (ACCOUNT_FILES: shared files
that `useradd`/`groupadd` rewrite, where a task's users are a few lines among the system's) are never
outputs.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from rst_synth.sandbox import FileState
from rst_synth.sandbox.listing import SCAN_ROOTS
from rst_synth.task import StepRecord, Task, TaskPaths
from rst_synth.validator.contracts import declared_contracts
from rst_synth.validator.models import Check, CheckResult, Reason, Verdict
from rst_synth.validator.strictness import open_details

ACCOUNT_FILES = frozenset({"/etc/passwd", "/etc/group", "/etc/shadow", "/etc/gshadow", "/etc/subuid", "/etc/subgid"})
MIN_REDUNDANT_BYTES = 16
"""Smaller files are never redundant: empty markers and one-word results coincide by chance."""
_PATH_LITERAL = re.compile(r"^/[A-Za-z0-9_.@+,=~-]+(?:/[A-Za-z0-9_.@+,=~-]+)*/?$")
"""No ":": a colon joins a search path (`/usr/local/bin:/usr/bin`) or a pytest node id, never one file."""
_ENV_NAME = re.compile(r"(?i)(?:^|_)(?:env|environ|environment)$")
"""`env`, `os.environ`, `child_env`: a name that holds a process environment (not `env_file`)."""
_ENV_KEY = re.compile(r"^[A-Z][A-Z0-9_]*$")
"""`HOME`, `PATH`, `APP_CONFIG`: how a process environment's keys are written."""
_ENV_VARIABLE = re.compile(
    r"^(?:HOME|USER|SHELL|TERM|TZ|LANG|TMPDIR|PWD|PATH|LD_LIBRARY_PATH|PYTHON[A-Z]*|(?:LC|GIT|PIP|XDG)_[A-Z_]+)$"
)
"""Variables of every environment: a dict with one of them is an environment (not `{"CSV": "/app/a.csv"}`)."""
_ENV_METHODS = frozenset({"get", "setdefault", "pop", "update"})


@dataclass
class States:
    """File states recorded while the earlier checks ran; empty where a trial did not get that far."""

    child_before: FileState = field(default_factory=dict)
    """The oracle's container before the child's solution."""
    child_after: FileState = field(default_factory=dict)
    """The oracle's container after the child's solution (before the tests)."""
    parent_before: FileState = field(default_factory=dict)
    """The parent check's container before the parent's solution."""
    parent_after: FileState = field(default_factory=dict)
    """The parent check's container after the parent's solution."""
    replays: list[FileState] = field(default_factory=list)
    """The determinism runs' containers after the child's solution."""

    def varies(self, path: str) -> bool:
        """The child's solution left `path` with another content in some determinism run."""
        return any(replay.get(path) != self.child_after.get(path) for replay in self.replays)


def _made(before: FileState, after: FileState) -> FileState:
    return {path: digest for path, digest in after.items() if before.get(path) != digest}


def is_output_path(path: str) -> bool:
    """Not a hidden path (git internals, dotfiles), a backup name (`/etc/passwd-`, `notes~`) or an
    account database."""
    parts = PurePosixPath(path).parts
    hidden = any(part.startswith(".") for part in parts)
    return not hidden and not path.endswith(("-", "~")) and path not in ACCOUNT_FILES


def new_outputs(states: States) -> FileState:
    """The files the child's new steps created or changed (module docstring), by path."""
    parent_made = _made(states.parent_before, states.parent_after)
    outputs: FileState = {}
    for path, digest in sorted(_made(states.child_before, states.child_after).items()):
        if not is_output_path(path):
            continue
        theirs = parent_made.get(path)
        if theirs is None or (theirs != digest and not states.varies(path)):
            outputs[path] = digest
    return outputs


def _check(check: Check, problems: list[str], reason: Reason, ok: str) -> CheckResult:
    if not problems:
        return CheckResult(check=check, verdict=Verdict.PASS, reason=Reason.OK, detail=ok)
    return CheckResult(check=check, verdict=Verdict.FAIL, reason=reason, detail=listed(problems))


def listed(problems: list[str], limit: int = 600) -> str:
    """The problems joined by "; ", as many as fit in `limit` characters (the first always)."""
    shown = problems[:1]
    for problem in problems[1:]:
        if len("; ".join([*shown, problem])) > limit:
            break
        shown.append(problem)
    more = f" (and {len(problems) - len(shown)} more)" if len(problems) > len(shown) else ""
    return "; ".join(shown) + more


def redundancy(outputs: FileState, states: States) -> CheckResult:
    """No new output of 16 bytes or more has the content of a file present after the parent's solution
    (or provided by the child's image), nor of another new output."""
    known: dict[str, str] = {}
    for state in (states.child_before, states.parent_after):
        for path, digest in sorted(state.items()):
            if path not in outputs:
                known.setdefault(digest.sha256, path)
    problems = []
    seen: dict[str, str] = {}
    for path, digest in outputs.items():
        if digest.size < MIN_REDUNDANT_BYTES:
            continue
        if digest.sha256 in known:
            problems.append(
                f"{path} has the same content as {known[digest.sha256]}, present after the parent's solution"
            )
        elif digest.sha256 in seen:
            problems.append(f"{path} has the same content as {seen[digest.sha256]}, another new output")
        seen.setdefault(digest.sha256, path)
    ok = f"{len(outputs)} new output(s), none a copy"
    return _check(Check.REDUNDANCY, problems, Reason.REDUNDANT_OUTPUT, ok)


def path_literals(modules: dict[str, bytes]) -> set[str]:
    """String literals of Python modules that look like absolute paths under the scan roots (the
    parts of f-strings included; one that a placeholder cuts inside a name by its folder), as written:
    how a test names what it reads. A scan root alone and the values a test gives its processes'
    environment (`HOME`, `PATH`) are no paths of the task."""
    found: set[str] = set()
    for body in modules.values():
        try:
            tree = ast.parse(body.decode("utf-8", errors="replace"))
        except (SyntaxError, ValueError):
            continue  # the static check rejects modules that do not compile
        skipped, cut = _environment_values(tree), _cut_names(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and _PATH_LITERAL.match(node.value):
                path = node.value.rstrip("/") or "/"
                if id(node) in cut and not node.value.endswith("/"):
                    path = path.rsplit("/", 1)[0]  # `f"/app/data/notes-{n}.txt"`: its folder
                if id(node) not in skipped and any(path.startswith(root + "/") for root in SCAN_ROOTS):
                    found.add(path)
    return found


def _cut_names(tree: ast.AST) -> set[int]:
    """The ids of the f-string parts a placeholder follows: they may end inside a file name."""
    return {
        id(part)
        for node in ast.walk(tree)
        if isinstance(node, ast.JoinedStr)
        for part, following in zip(node.values, node.values[1:], strict=False)
        if isinstance(following, ast.FormattedValue)
    }


def _environment_values(tree: ast.AST) -> set[int]:
    """The ids of the nodes that give an environment variable its value: `{"HOME": ...}`, `env=...`,
    `dict(os.environ, HOME=...)`, `env["HOME"] = ...`, `os.environ.get("PATH", ...)`,
    `os.getenv(..., ...)`, `monkeypatch.setenv(..., ...)`."""
    values: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict) and _is_environment(node):
            values += [v for k, v in zip(node.keys, node.values, strict=True) if _key_matches(k, _ENV_KEY)]
        elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(_holds_env(t) for t in targets):  # `env = ...`, `env["HOME"] = ...`
                values.append(node.value)
        elif isinstance(node, ast.Call):
            values += [k.value for k in node.keywords if k.arg is not None and _ENV_NAME.search(k.arg)]
            if _is_env_call(node):
                values += [*node.args, *(k.value for k in node.keywords)]
    return {id(n) for value in values for n in ast.walk(value)}


def _is_environment(node: ast.Dict) -> bool:
    """`{**os.environ, ...}` or a dict with a well-known variable (`{"HOME": ...}`); not any dict with
    upper-case keys (`{"CSV": "/app/out.csv"}` names a task's file)."""
    return any(k is None and _holds_env(v) for k, v in zip(node.keys, node.values, strict=True)) or any(
        _key_matches(k, _ENV_VARIABLE) for k in node.keys
    )


def _key_matches(key: ast.expr | None, pattern: re.Pattern[str]) -> bool:
    return isinstance(key, ast.Constant) and isinstance(key.value, str) and bool(pattern.match(key.value))


def _holds_env(node: ast.expr) -> bool:
    """The expression names an environment: `env`, `os.environ`, `os.environ.copy()`, `self.env`."""
    while True:
        if isinstance(node, ast.Name):
            return bool(_ENV_NAME.search(node.id))
        if isinstance(node, ast.Attribute):
            if _ENV_NAME.search(node.attr):
                return True
            node = node.value
        elif isinstance(node, ast.Call | ast.Subscript):
            node = node.func if isinstance(node, ast.Call) else node.value
        else:
            return False


def _is_env_call(call: ast.Call) -> bool:
    """`dict(os.environ, ...)`, `env.get(...)`, `os.getenv(...)`, `monkeypatch.setenv(...)`."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id == "getenv" or (func.id == "dict" and bool(call.args) and _holds_env(call.args[0]))
    if isinstance(func, ast.Attribute):
        if func.attr in {"getenv", "setenv", "putenv"}:
            return True
        return func.attr in _ENV_METHODS and _holds_env(func.value)
    return False


def tests_of(task: Task) -> dict[str, bytes]:
    """The task's tests/*.py, by path relative to the task directory."""
    prefix = TaskPaths.TESTS_DIR + "/"
    return {rel: body for rel, body in task.files.items() if rel.startswith(prefix) and rel.endswith(".py")}


def new_test_modules(task: Task, parent: Task) -> dict[str, bytes]:
    """The child's test modules that the parent lacks or that differ from the parent's."""
    theirs = tests_of(parent)
    return {rel: body for rel, body in tests_of(task).items() if theirs.get(rel) != body}


def _named(path: str, text: str) -> bool:
    """`path` appears in `text` as a whole path (not as the start of a longer name), or its folder
    and its file name both do."""
    end = r"(?![\w-]|\.\w)"
    if re.search(re.escape(path) + end, text):
        return True
    folder, name = path.rsplit("/", 1)
    return (
        bool(folder)
        and re.search(re.escape(folder) + r"(?![\w.-])", text) is not None
        and (re.search(r"(?<![\w.-])" + re.escape(name) + end, text) is not None)
    )


def instruction_paths(task: Task, parent: Task) -> CheckResult:
    """Every path the new test modules name (string literals under the scan roots) appears in the
    instruction: an agent cannot guess where the tests look. And an instruction rewritten for the whole
    workflow keeps what the parent's stated and the tests still read (`lost_literals`)."""
    new = new_test_modules(task, parent)
    missing = sorted(p for p in path_literals(new) if not _named(p, task.instruction))
    problems = [f"{p} is read by {_module_naming(p, new)} but the instruction never names it" for p in missing]
    problems += [
        f"`{literal}` is stated by the parent's instruction and read by the tests, but the instruction lost it"
        for literal in lost_literals(task, parent)
    ]
    ok = f"{len(path_literals(new))} path(s) of the new tests, all named"
    result = _check(Check.INSTRUCTION_PATHS, problems, Reason.INSTRUCTION_GAP, ok)
    if details := open_details(new, declared_contracts(task)):  # a note: the instruction may state them
        result.detail += f"; the tests check what the instruction may leave open: {listed(details, 300)}"
    return result


_BACKTICKED = re.compile(r"`([^`\n]{2,200})`")


def lost_literals(task: Task, parent: Task) -> list[str]:
    """The backticked literals (a path, a header, a key, a value) of the parent's instruction that a test of
    the child still holds in a string and that the child's instruction no longer states."""
    stated = {m.group(1) for m in _BACKTICKED.finditer(parent.instruction)}
    gone = sorted(s for s in stated if s not in task.instruction)
    if not gone:
        return []
    strings = _strings(tests_of(task))
    return [s for s in gone if any(s in text for text in strings)]


def _strings(modules: dict[str, bytes]) -> list[str]:
    found = []
    for body in modules.values():
        try:
            tree = ast.parse(body.decode("utf-8", errors="replace"))
        except (SyntaxError, ValueError):
            continue
        found += [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return found


def _module_naming(path: str, modules: dict[str, bytes]) -> str:
    return next((rel for rel, body in sorted(modules.items()) if path_literals({rel: body})), "a new test")


def parent_outputs(parent: Task, states: States) -> CheckResult:
    """The child's solution leaves every file the parent's tests name (string literals of its
    tests/*.py that name a file) with the content the parent's solution gave it."""
    problems = []
    for path in sorted(path_literals(tests_of(parent))):
        theirs = states.parent_after.get(path)
        if theirs is None:  # a folder, or a file the parent's tests expect to be absent
            continue
        if states.child_before.get(path) != states.parent_before.get(path):
            continue  # the containers started from different content (files the engine writes)
        mine = states.child_after.get(path)
        if mine is None:
            problems.append(f"the new steps delete {path}, which the parent's tests read")
        elif mine != theirs and not states.varies(path):
            problems.append(f"the new steps change {path}, which the parent's tests read")
    return _check(Check.PARENT_OUTPUTS, problems, Reason.CHANGES_PARENT_OUTPUT, "the parent's outputs unchanged")


def added_steps(task: Task) -> list[StepRecord]:
    """The steps the child records in [[metadata.lineage.added]], where their lines fit solve.sh."""
    lineage = task.config.metadata.lineage
    if lineage is None:
        return []
    lines = task.files.get(TaskPaths.SOLVE, b"").decode("utf-8", errors="replace").count("\n") + 1
    return [r for r in lineage.added if 1 <= r.solution_lines[0] <= r.solution_lines[1] <= lines]


def without_step(task: Task, record: StepRecord) -> dict[str, bytes]:
    """The child's solution/ with the step's lines of solve.sh left out."""
    first, last = record.solution_lines
    lines = task.solve_sh.splitlines(keepends=True)
    solution = task.files_under(TaskPaths.SOLUTION_DIR)
    solve = PurePosixPath(TaskPaths.SOLVE).relative_to(TaskPaths.SOLUTION_DIR)
    solution[str(solve)] = "".join(lines[: first - 1] + lines[last:]).encode("utf-8")
    return solution


def step_result(records: list[StepRecord], passing: list[StepRecord]) -> CheckResult:
    """The steps check from the steps whose omission still passes the tests."""
    if len(records) < 2:
        ok = "one new step: the parent check showed it is needed" if records else "no step records"
        return CheckResult(check=Check.STEPS, verdict=Verdict.PASS, reason=Reason.OK, detail=ok)
    problems = [
        f"the tests pass without step {r.tag} ({r.name}, solve.sh lines {r.solution_lines[0]}-{r.solution_lines[1]})"
        for r in passing
    ]
    return _check(Check.STEPS, problems, Reason.STEP_UNNECESSARY, f"each of {len(records)} new steps needed")


__all__ = [
    "States",
    "added_steps",
    "instruction_paths",
    "is_output_path",
    "new_outputs",
    "new_test_modules",
    "parent_outputs",
    "path_literals",
    "redundancy",
    "step_result",
    "without_step",
]
