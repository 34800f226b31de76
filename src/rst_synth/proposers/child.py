"""The one child assembly every proposer uses: a parent plus new steps makes a child, and a child
minus its parent gives the steps back.

Step boundaries are data: each added step is recorded in [[metadata.lineage.added]] with the lines
it occupies in solve.sh and instruction.md and its test module, so taking a child apart never
depends on the comments written into its files.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from pathlib import PurePosixPath

from pydantic import BaseModel, Field

from rst_synth.proposers.base import ProposalError
from rst_synth.task import HistoryStep, Lineage, Metadata, OutputContract, StepRecord, Task, TaskInfo, TaskPaths
from rst_synth.task.dockerfile import as_root, without_root_wrap
from rst_synth.task.shell import logical_lines, without_trailing_exit
from rst_synth.validator import Reason


class NewStep(BaseModel):
    """One step that extends a parent's workflow, whichever proposer wrote it."""

    name: str
    """The operator or workflow theme it applies."""
    tag: str
    """Unique within the lineage ("r2s1"); names the step's test module."""
    consumes: list[str] = Field(default_factory=list)
    """Paths of the parent's (or an earlier step's) artifacts it builds on."""
    solution: str
    """Bash appended to solve.sh; runs after the parent's workflow, `set -e` may be on."""
    test_module: str
    """The complete pytest module with the step's checks."""
    instruction: str
    """Markdown paragraph stating every behaviour the step's checks test."""
    produces: list[str] = Field(default_factory=list)
    """Paths of the files the step writes, where the proposer knows them (recorded in the lineage's history)."""
    bookkeeping: bool = False
    """A bookkeeping step (checksums, archives, listings, counts): later steps never build on its outputs."""
    ends: list[str] = Field(default_factory=list)
    """Of `produces`, the end results (a report of rejects, a summary): later steps never build on them."""
    outputs: list[OutputContract] = Field(default_factory=list)
    """The contracts of the files it writes, where the proposer declares them (validator/contracts.py)."""

    @property
    def test_path(self) -> str:
        return step_test_module(self.tag)


class Extension(BaseModel):
    """What a child adds to its parent."""

    steps: list[NewStep] = Field(min_length=1)
    packages: list[str] = Field(default_factory=list)
    """Debian packages the steps need that the parent's image lacks (one apt line in the Dockerfile)."""
    dockerfile_append: str = ""
    """Further lines appended to the parent's Dockerfile, after the apt line."""


def step_test_module(tag: str) -> str:
    """Where a step's checks live; the tag makes the name unique within a lineage."""
    return f"{TaskPaths.TESTS_DIR}/test_step_{tag}.py"


Compose = Callable[[str, list[NewStep]], tuple[str, list[tuple[int, int]]]]
"""How a proposer writes a child's instruction: from the parent's and the new steps, the whole text and each
step's (first, last) line in it, 1-based."""


def assemble_child(parent: Task, extension: Extension, *, proposer: str, compose: Compose | None = None) -> Task:
    """The parent extended: solution, tests, instruction, image and task.toml realigned. The instruction is
    the parent's with each step's paragraph appended, or what `compose` writes."""
    child = parent.model_copy(deep=True)
    child.source_dir = None
    solve = without_trailing_exit(parent.solve_sh)
    instruction = parent.instruction.rstrip("\n") + "\n"
    spans: list[tuple[int, int]] = []
    if compose is not None:
        instruction, spans = compose(parent.instruction, extension.steps)
    records = []
    for index, step in enumerate(extension.steps):
        consumes = ", ".join(step.consumes) or "the parent's outputs"
        solve += f"\n# --- step {step.tag}: {step.name}, building on {consumes} ---\n"
        code = step.solution.strip("\n") + "\n"
        first = solve.count("\n") + 1
        solve += code
        solution_lines = (first, solve.count("\n"))
        if compose is None:
            instruction += "\n"
            first = instruction.count("\n") + 1
            instruction += step.instruction.strip("\n") + "\n"
            spans.append((first, instruction.count("\n")))
        instruction_lines = spans[index]
        child.set_text(step.test_path, step.test_module.rstrip("\n") + "\n")
        records.append(
            StepRecord(
                name=step.name,
                tag=step.tag,
                consumes=step.consumes,
                solution_lines=solution_lines,
                instruction_lines=instruction_lines,
                test_module=step.test_path,
                outputs=step.outputs,
            )
        )
    child.set_text(TaskPaths.SOLVE, solve, executable=True)
    child.instruction = instruction
    appended = (_apt_line(extension.packages) if extension.packages else "") + _lines(extension.dockerfile_append)
    if appended:
        dockerfile = parent.dockerfile.rstrip("\n") + "\n" + as_root(parent.dockerfile, appended)
        child.set_text(TaskPaths.DOCKERFILE, dockerfile)
    run_new_modules(parent, child, [record.test_module for record in records])
    _realign_config(child, parent, extension, records, proposer)
    return child


def split_child(parent: Task, child: Task) -> Extension:
    """What `assemble_child` added to `parent` to make `child`: its inverse, read from the step records.

    The apt line comes back as part of `dockerfile_append`, so assembling the result again gives the
    same child."""
    lineage = child.config.metadata.lineage
    if lineage is None or not lineage.added:
        raise ValueError(f"{child.name}: task.toml records no added steps ([[metadata.lineage.added]])")
    solve, instruction = child.solve_sh.splitlines(), child.instruction.splitlines()
    # The history ends with this child's own steps: it carries what the step records do not.
    own = lineage.history[len(lineage.history) - len(lineage.added) :]
    if [h.name for h in own] != [r.name for r in lineage.added]:
        own = []
    steps = []
    for k, record in enumerate(lineage.added):
        known = own[k] if own else None
        steps.append(
            NewStep(
                name=record.name,
                tag=record.tag,
                consumes=record.consumes,
                solution=_slice(solve, record.solution_lines),
                test_module=child.text(record.test_module),
                instruction=_slice(instruction, record.instruction_lines),
                produces=known.produces if known else [],
                bookkeeping=known.bookkeeping if known else False,
                outputs=record.outputs,
            )
        )
    prefix = parent.dockerfile.rstrip("\n")
    dockerfile = child.dockerfile
    append = dockerfile[len(prefix) :] if dockerfile.startswith(prefix) else ""
    return Extension(steps=steps, dockerfile_append=without_root_wrap(parent.dockerfile, _lines(append)))


def _slice(lines: list[str], span: tuple[int, int]) -> str:
    first, last = span
    return "\n".join(lines[first - 1 : last]) + "\n"


def _lines(text: str) -> str:
    """Text as whole lines ("" when blank)."""
    return text.strip("\n") + "\n" if text.strip() else ""


def _apt_line(packages: list[str]) -> str:
    return (
        "RUN apt-get update && apt-get install -y --no-install-recommends "
        f"{' '.join(sorted(packages))} && rm -rf /var/lib/apt/lists/*\n"
    )


def _realign_config(child: Task, parent: Task, extension: Extension, records: list[StepRecord], proposer: str) -> None:
    lineage = parent.config.metadata.lineage or Lineage()
    root = lineage.root or parent.name
    round_ = lineage.round + 1
    digest = hashlib.sha256("\0".join(s.solution + s.test_module for s in extension.steps).encode()).hexdigest()[:8]
    org = parent.name.split("/", 1)[0] if "/" in parent.name else "rst"
    root_short = root.rsplit("/", 1)[-1][:40]
    name = f"{org}/{root_short}-r{round_}-{digest}"
    info = parent.config.task or TaskInfo(name=name)
    names = [s.name for s in extension.steps]
    # Parents made before the history existed still contribute the steps they recorded themselves.
    earlier = lineage.history or [HistoryStep(name=r.name, consumes=r.consumes) for r in lineage.added]
    fields = {"name", "consumes", "produces", "bookkeeping", "ends"}
    history = [*earlier, *(HistoryStep(**s.model_dump(include=fields)) for s in extension.steps)]
    child.config.task = info.model_copy(update={"name": name, "keywords": sorted(set(info.keywords) | set(names))})
    old = parent.config.metadata
    child.config.metadata = Metadata.model_validate(
        {
            **old.model_dump(exclude={"lineage", "metrics", "difficulty"}),
            "difficulty": None,  # computed from measured figures once validated, never inherited
            "lineage": Lineage(
                parent=parent.name,
                root=root,
                round=round_,
                proposer=proposer,
                steps=names,
                added=records,
                history=history,
                scenario=lineage.scenario,
            ),
            "metrics": None,
        }
    )


# --- The verifier: new test modules must run under the parent's test.sh as it is written. ---

_PYTEST_RUN = re.compile(r"(?<![\w.=-])(?:py\.test|pytest)(?![\w.=-])")
"""pytest as a command word (not `-w pytest==8.4.1`, not `pytest-json-ctrf`)."""
_MODULE_ARG = re.compile(
    r"(?<!\S)(?P<quote>[\"']?)(?P<path>[^\s\"';&|()<>]*?\.py)(?P<node>::[^\s\"';&|()<>]*)?(?P=quote)(?=[\s;&|)]|$)"
)


class ModuleArgument(BaseModel):
    """Where a verifier script names a test module on its pytest command line."""

    script: str
    """The script, relative to the task directory (tests/test.sh or a script it runs)."""
    end: int
    """Offset in the script just after the argument."""
    tests_dir: str
    """How the argument spells the tests folder ("/tests/", "$TEST_DIR/", "" when relative)."""
    quote: str


def run_new_modules(parent: Task, child: Task, modules: list[str]) -> None:
    """Make the child's verifier run `modules` as well: a pytest command that names test modules gets
    the new ones after the last it names; one that runs a folder collects them as they are. The reward
    logic around the command is left as it is. ProposalError when the verifier runs no pytest at all."""
    if not modules:
        return
    argument = last_module_argument(parent)
    if argument is None:
        if not any(_pytest_lines(parent.text(script)) for script in verifier_scripts(parent)):
            raise ProposalError(
                Reason.VERIFIER_NOT_EXTENDABLE,
                f"{TaskPaths.TEST_SH} runs no pytest command, so new test modules would never run",
            )
        return  # pytest collects the folder: test_step_*.py modules are found as they are
    text = parent.text(argument.script)
    names = [PurePosixPath(module).relative_to(TaskPaths.TESTS_DIR).as_posix() for module in modules]
    added = "".join(f" {argument.quote}{argument.tests_dir}{name}{argument.quote}" for name in names)
    child.set_text(argument.script, text[: argument.end] + added + text[argument.end :])


def verifier_scripts(task: Task) -> list[str]:
    """tests/test.sh, then the other scripts under tests/ that it names (a runner it calls)."""
    main = task.text(TaskPaths.TEST_SH)
    others = sorted(
        rel
        for rel in task.files
        if rel.startswith(f"{TaskPaths.TESTS_DIR}/") and rel.endswith(".sh") and rel != TaskPaths.TEST_SH
    )
    return [TaskPaths.TEST_SH, *(rel for rel in others if PurePosixPath(rel).name in main)]


def last_module_argument(task: Task) -> ModuleArgument | None:
    """The last test module named on a pytest command line of the verifier (test.sh first, then the
    scripts it runs); None when every pytest command runs a folder."""
    modules = [rel[len(TaskPaths.TESTS_DIR) + 1 :] for rel in task.files if rel.startswith(f"{TaskPaths.TESTS_DIR}/")]
    for script in verifier_scripts(task):
        text = task.text(script)
        found = None
        for start, end in _pytest_lines(text):
            for match in _MODULE_ARG.finditer(text, start, end):
                path = match.group("path")
                module = next((m for m in modules if path == m or path.endswith("/" + m)), None)
                if module is not None:
                    found = ModuleArgument(
                        script=script,
                        end=match.end(),
                        tests_dir=path[: len(path) - len(module)],
                        quote=match.group("quote"),
                    )
        if found is not None:
            return found
    return None


def pytest_runs(script: str) -> int:
    """How many pytest commands a verifier script runs (counted on its code lines, comments left out)."""
    return sum(len(_PYTEST_RUN.findall(script, start, end)) for start, end in _pytest_lines(script))


def _pytest_lines(script: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the logical lines that run pytest (comments and here-documents aside)."""
    return [(line.start, line.end) for line in logical_lines(script) if line.code and _PYTEST_RUN.search(line.text)]
