"""The mutation check: do the tests notice when a new output is gone or slightly wrong?

In the oracle's own container, after the oracle's tests passed, each new output (validator/quality.py)
is in turn deleted, given one changed value, and given one line less; after each edit the tests run
again and the file is restored from a copy. Every deletion must make the tests fail, and for each
output at least one of its content edits must. To keep the cost down, an output's other content
edits are skipped once one made the tests fail, and the check stops at the first output the tests
do not guard. The kill rate is the share of the edits run that made the tests fail.

Edits: the value edit adds 1 to the middle number of the file (keeping its width), or, in a file
without digits, moves the first letter of its middle non-blank line to the next letter; the line edit
drops the middle non-blank line; an SQLite database gets one value of its middle row changed (a
byte flip there could land in unused page space and change nothing); any other file that is not
UTF-8 text gets one byte changed in its middle instead. An empty file has nothing to edit but its
existence, and a file over 4 MiB gets the deletion only (it is not copied out of the container).

The new outputs are what the child's new test modules read, and the whole suite fails when one of
them does; so each edit first runs those modules alone (`quick`), and the whole test.sh only when
they still pass: an edit they catch has its verdict without the parent's tests. The shortcut is
taken where test.sh runs pytest over those modules without selecting among tests, and the modules
alone pass on the untouched outputs first.
"""

from __future__ import annotations

import json
import re
import shlex
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from rst_synth.harness import read_reward
from rst_synth.sandbox import Container, FileState, SandboxError
from rst_synth.task import Task, TaskPaths
from rst_synth.validator.models import Check, CheckResult, Reason, Verdict
from rst_synth.validator.quality import added_steps

MAX_CONTENT_BYTES = 4 * 1024 * 1024
WORK_DIR = PurePosixPath("/tmp/rst-mutation")
"""Where the copies and the edited contents wait, outside the scan roots."""
_DRIVER = Path(__file__).with_name("quick_mutants.py")
_APPLIED = "rst-mutation-applied"
_CAUGHT = "rst-mutation-caught"
_SELECTS = re.compile(r"(?:^|\s)(?:-k|-m(?!\s+pytest)|--deselect|--lf|--last-failed)(?:\s|=|$)")
_NUMBER = re.compile(r"\d+")
_LETTER = re.compile(r"[A-Za-z]")

Edit = Literal["delete", "value", "line", "byte"]
_SQLITE_HEADER = b"SQLite format 3\x00"


@dataclass(frozen=True)
class Mutant:
    path: str
    edit: Edit
    content: bytes | None
    """The edited content; None for the deletion."""
    what: str
    """The edit, for people: "deleted", "line 3: 42 -> 43", ..."""


@dataclass
class MutationOutcome:
    result: CheckResult
    kill_rate: float | None
    """Killed edits / edits run; None when there was no new output."""
    accepted: bool | None = None
    """Whether the new modules passed after `weak_tests`' `then` (None: it did not run, the batch
    having stopped before its end or not run)."""


def mutants_of(path: str, content: bytes | None) -> list[Mutant]:
    """The deletion and the content edits of one output (`content` None: too large to copy out)."""
    found = [Mutant(path, "delete", None, "deleted")]
    if not content:
        return found
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if content.startswith(_SQLITE_HEADER) and (row_edit := _sqlite_value_edit(content)) is not None:
        return [*found, Mutant(path, "value", *row_edit)]
    if text is None or "\0" in text:
        middle = len(content) // 2
        edited = content[:middle] + bytes([content[middle] ^ 0x01]) + content[middle + 1 :]
        return [*found, Mutant(path, "byte", edited, f"byte {middle} changed")]
    edits: list[tuple[Edit, tuple[str, str] | None]] = [("value", _value_edit(text)), ("line", _line_edit(text))]
    for edit, made in edits:
        if made is not None and made[0] != text:
            found.append(Mutant(path, edit, made[0].encode("utf-8"), made[1]))
    return found


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _value_edit(text: str) -> tuple[str, str] | None:
    numbers = list(_NUMBER.finditer(text))
    if numbers:
        found = numbers[len(numbers) // 2]
        new = str(int(found[0]) + 1).zfill(len(found[0]))
        line = _line_of(text, found.start())
        return text[: found.start()] + new + text[found.end() :], f"line {line}: {found[0]} -> {new}"
    lines = text.splitlines(keepends=True)
    filled = [i for i, line in enumerate(lines) if _LETTER.search(line)]
    if not filled:
        return None
    index = filled[len(filled) // 2]
    letter = _LETTER.search(lines[index])
    assert letter is not None
    old = letter[0]
    base = ord("a") if old.islower() else ord("A")
    new = chr(base + (ord(old) - base + 1) % 26)
    lines[index] = lines[index][: letter.start()] + new + lines[index][letter.end() :]
    return "".join(lines), f"line {index + 1}: {old!r} -> {new!r}"


def _sqlite_value_edit(content: bytes) -> tuple[bytes, str] | None:
    """One value of the middle row of the first table that has rows: a number + 1, a text's first
    letter moved on (or its middle number + 1); None when no table has a value that can be edited."""
    with tempfile.TemporaryDirectory() as folder:
        path = f"{folder}/db"
        with open(path, "wb") as file:
            file.write(content)
        db = sqlite3.connect(path)
        try:
            made = _edit_middle_row(db)
            db.commit()
        except sqlite3.Error:
            made = None
        finally:
            db.close()
        if made is None:
            return None
        with open(path, "rb") as file:
            return file.read(), made


def _edit_middle_row(db: sqlite3.Connection) -> str | None:
    names = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    for table in (name for name in names if not name.startswith("sqlite_")):
        quoted = '"' + table.replace('"', '""') + '"'
        try:
            count = db.execute(f"SELECT count(*) FROM {quoted}").fetchone()[0]
            if not count:
                continue
            cursor = db.execute(f"SELECT rowid, * FROM {quoted} LIMIT 1 OFFSET ?", (count // 2,))
        except sqlite3.Error:  # WITHOUT ROWID tables, virtual tables
            continue
        rowid, *values = cursor.fetchone()
        columns = [d[0] for d in cursor.description[1:]]
        # Numbers first: a changed total is the subtle error the tests should notice.
        order = sorted(range(len(values)), key=lambda i: not isinstance(values[i], int | float))
        for i in order:
            old = values[i]
            if isinstance(old, bool) or not isinstance(old, int | float | str):
                continue
            new: int | float | str = old + 1 if not isinstance(old, str) else (_value_edit(old) or ("", ""))[0]
            if new in ("", old):
                continue
            column = '"' + columns[i].replace('"', '""') + '"'
            try:
                db.execute(f"UPDATE {quoted} SET {column} = ? WHERE rowid = ?", (new, rowid))
            except sqlite3.Error:  # a constraint the edit breaks: try the next value
                continue
            return f"table {table} row {count // 2 + 1}: {columns[i]} {old!r} -> {new!r}"
    return None


def _line_edit(text: str) -> tuple[str, str] | None:
    lines = text.splitlines(keepends=True)
    filled = [i for i, line in enumerate(lines) if line.strip()]
    if not filled:
        return None
    index = filled[len(filled) // 2]
    return "".join(lines[:index] + lines[index + 1 :]), f"line {index + 1} dropped"


def quick_command(task: Task, timeout: float) -> str | None:
    """The pytest command of `task`'s new test modules alone (`modules_command`), or None."""
    return modules_command(task.text(TaskPaths.TEST_SH), list(new_modules(task)), timeout)


def new_modules(task: Task) -> dict[str, str]:
    """The child's new test modules: their paths in the container, and their text."""
    found = {}
    for record in added_steps(task):
        name = PurePosixPath(record.test_module).name
        if record.test_module and f"{TaskPaths.TESTS_DIR}/{name}" in task.files:
            text = task.files[f"{TaskPaths.TESTS_DIR}/{name}"].decode("utf-8", errors="replace")
            found[str(TaskPaths.CONTAINER_TESTS_DIR / name)] = text
    return found


def modules_command(test_sh: str, modules: list[str], timeout: float) -> str | None:
    """The pytest command that runs the new test `modules` (paths under /tests) alone, where test.sh
    runs them all with every test selected (module docstring); None where it may not stand for it."""
    names = [PurePosixPath(m).name for m in modules]
    named = re.findall(r"test_[\w.-]*\.py", test_sh)
    if not modules or "pytest" not in test_sh or _SELECTS.search(test_sh):
        return None
    if named and not all(n in test_sh for n in names):
        return None
    listed = " ".join(shlex.quote(m) for m in modules)
    pytest = f"python3 -m pytest -q -x -p no:cacheprovider {listed}"
    return f"cd {TaskPaths.CONTAINER_TESTS_DIR} && PYTHONDONTWRITEBYTECODE=1 timeout -k 5 {timeout:g} {pytest}"


async def weak_tests(
    box: Container,
    outputs: FileState,
    *,
    verify_timeout: float,
    max_outputs: int,
    quick: str | None = None,
    modules: dict[str, str] | None = None,
    then: str | None = None,
) -> MutationOutcome:
    """Run the edits of (at most `max_outputs` of) `outputs` in `box`, the oracle's container, whose
    tests passed; every file is restored after its edits. `quick`: the new modules' own pytest
    command (`quick_command`), which passed on the untouched outputs, tried first on every edit;
    with the `modules` it names (`new_modules`), the edits those catch run in one process (quick_mutants.py).
    `then`: a command the batch runs once every edit was caught and the outputs restored, before one
    more run of the modules, which must pass (the tolerance check's rewrite).

    To keep the cost down, an output's remaining content edits are skipped once one of them made the
    tests fail, and the check stops at the first output whose deletion or content edits all leave
    the tests passing; the kill rate is over the edits run."""
    if not outputs:
        result = CheckResult(check=Check.MUTATION, verdict=Verdict.PASS, reason=Reason.OK, detail="no new output")
        return MutationOutcome(result=result, kill_rate=None)
    chosen = sorted(outputs)[:max_outputs]
    edits: dict[str, list[Mutant]] = {}
    for path in chosen:
        content = await box.read_file(PurePosixPath(path)) if outputs[path].size <= MAX_CONTENT_BYTES else None
        edits[path] = mutants_of(path, content)
    numbered = {id(m): i for i, m in enumerate(m for path in chosen for m in edits[path])}
    # The edits run as the image's user, who wrote the outputs (solve.sh runs as that user); root in a
    # container whose USER is another has no capabilities and could not keep the owner of a copy.
    staged = {
        f"{WORK_DIR.name}/m{numbered[id(m)]}": m.content for ms in edits.values() for m in ms if m.content is not None
    }
    backups = {path: k for k, path in enumerate(chosen)}
    plan = _plan(chosen, edits, numbered, backups, modules, verify_timeout, then) if quick and modules else None
    if plan is not None:
        staged[f"{WORK_DIR.name}/plan.json"] = plan
        staged[f"{WORK_DIR.name}/quick_mutants.py"] = _DRIVER.read_bytes()
    await box.put_files(staged, WORK_DIR.parent, open_dirs=(WORK_DIR.name,))
    batch, accepted = await _batch(box, verify_timeout * (len(numbered) + 1) + 60) if plan is not None else ([], None)
    run: list[tuple[Mutant, bool]] = []
    failure = None

    async def killed(mutant: Mutant) -> bool:
        if len(run) < len(batch) and batch[len(run)] == numbered[id(mutant)]:
            run.append((mutant, True))  # caught in the batch
            return True
        previous = run[-1][0] if run else None
        found = await _killed(box, numbered[id(mutant)], mutant, previous, backups, verify_timeout, quick)
        run.append((mutant, found))
        return found

    try:
        for path in chosen:
            deletion, *changes = edits[path]
            if not await killed(deletion):
                failure = f"the tests still pass with {path} deleted"
                break
            tried = []
            for change in changes:
                tried.append(change.what)
                if await killed(change):
                    break
            else:
                if changes:
                    failure = f"the tests still pass with {path} changed ({'; '.join(tried)})"
                    break
    finally:
        if run:
            last = run[-1][0].path
            await box.exec(_restore(backups[last], last), timeout=120)
    done = len({m.path for m, _ in run})
    kills = sum(found for _, found in run)
    capped = f" (the first {len(chosen)} of {len(outputs)} by path)" if len(chosen) < len(outputs) else ""
    summary = f"{kills} of {len(run)} edits of {done} new output(s){capped} made the tests fail"
    kill_rate = round(kills / len(run), 3)
    if failure is None:
        result = CheckResult(check=Check.MUTATION, verdict=Verdict.PASS, reason=Reason.OK, detail=summary)
    else:
        detail = f"{failure}; {summary}, then the check stopped"
        result = CheckResult(check=Check.MUTATION, verdict=Verdict.FAIL, reason=Reason.WEAK_TESTS, detail=detail)
    return MutationOutcome(result=result, kill_rate=kill_rate, accepted=accepted)


def _backup(index: int, path: str) -> str:
    return f"cp -a -- {shlex.quote(path)} {WORK_DIR}/b{index}"


def _restore(index: int, path: str) -> str:
    return f"cp -a -- {WORK_DIR}/b{index} {shlex.quote(path)}"


async def _killed(
    box: Container,
    i: int,
    mutant: Mutant,
    previous: Mutant | None,
    backups: dict[str, int],
    verify_timeout: float,
    quick: str | None,
) -> bool:
    """Apply edit `i` (restoring the previous output first, copying a new one first), run the tests
    (the `quick` modules first, test.sh only where they pass)."""
    steps = _apply(i, mutant, previous, backups)
    steps.append(f"rm -f -- {TaskPaths.CONTAINER_REWARD_TXT} {TaskPaths.CONTAINER_REWARD_JSON}")
    # One exec edits and verifies; `timeout` ends a hanging test run without taking the container down.
    whole = f"timeout -k 5 {verify_timeout:g} bash {TaskPaths.CONTAINER_TESTS_DIR}/test.sh"
    tests = f"if ( {quick} ) >/dev/null 2>&1; then {whole}; else echo {_CAUGHT}; fi" if quick else whole
    steps += [f"echo {_APPLIED}", tests]
    run = await box.exec(" && ".join(steps), timeout=2 * verify_timeout + 60)
    if run.timed_out:
        return True
    lines = run.output.splitlines()
    if _APPLIED not in lines:
        raise SandboxError(f"could not edit a new output for the mutation check: {run.tail(300).strip()}")
    if _CAUGHT in lines:
        return True
    reward = await read_reward(box)
    return reward is None or reward < 1.0


def _apply(i: int, mutant: Mutant, previous: Mutant | None, backups: dict[str, int]) -> list[str]:
    """The shell steps that put edit `i` in place after `previous` (restore the previous output,
    copy a new one away first)."""
    steps = []
    if previous is not None and previous.path != mutant.path:
        steps.append(_restore(backups[previous.path], previous.path))
    if previous is None or previous.path != mutant.path:
        steps.append(_backup(backups[mutant.path], mutant.path))
    else:
        steps.append(_restore(backups[mutant.path], mutant.path))
    target = shlex.quote(mutant.path)
    steps.append(f"rm -f -- {target}" if mutant.content is None else f"cat -- {WORK_DIR}/m{i} > {target}")
    return steps


def _plan(
    chosen: list[str],
    edits: dict[str, list[Mutant]],
    numbered: dict[int, int],
    backups: dict[str, int],
    modules: dict[str, str],
    timeout: float,
    then: str | None = None,
) -> bytes:
    """quick_mutants.py's plan: the edits in the check's order, and per output the modules that name
    it first (with `-x` a catch then ends the run sooner; every module still runs when none fails)."""
    groups = []
    for k, path in enumerate(chosen):
        previous = edits[chosen[k - 1]][0] if k else None  # any edit of the previous output: the same steps
        applies = []
        for j, mutant in enumerate(edits[path]):
            steps = _apply(numbered[id(mutant)], mutant, previous if j == 0 else edits[path][0], backups)
            applies.append({"index": numbered[id(mutant)], "apply": " && ".join(steps)})
        ordered = sorted(modules, key=lambda m: path not in modules[m])
        groups.append({"modules": ordered, "edits": applies, "undo": _restore(backups[path], path)})
    accept = {"apply": then, "modules": sorted(modules)} if then else None
    return json.dumps({"timeout": timeout, "groups": groups, "accept": accept}).encode()


async def _batch(box: Container, timeout: float) -> tuple[list[int], bool | None]:
    """Run the plan; the edits it caught, in order (a prefix of the check's edits), and how the
    modules took the plan's `accept` step (None: not run)."""
    run = await box.exec(
        f"cd {TaskPaths.CONTAINER_TESTS_DIR} && PYTHONDONTWRITEBYTECODE=1 python3 {WORK_DIR}/quick_mutants.py "
        f"{WORK_DIR}/plan.json",
        timeout=timeout,
    )
    lines = run.output.splitlines()
    caught = [int(line.split()[1]) for line in lines if re.fullmatch(r"caught \d+", line)]
    accepted = True if "accepted" in lines else False if "rejected" in lines else None
    return caught, accepted
