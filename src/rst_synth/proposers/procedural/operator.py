"""Step operators: one small, verified extension of a workflow, built on an earlier artifact.

An operator has a precondition (`applies`: which artifacts and tools it needs), and `build`
returns a Step: the shell code appended to the solution, the pytest checks added to the
verifier (computed by the test from the consumed artifact, never frozen copies of our own
output), the instruction text, and the artifacts it produces so a later step can chain on.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from pydantic import BaseModel, Field

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.columns import Use
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import used_modules
from rst_synth.task import HistoryStep, OutputContract
from rst_synth.task.config import Fixed
from rst_synth.validator.contracts import contract_by_type


class Step(BaseModel):
    """What one operator adds to a task."""

    operator: str = ""
    """The operator's name; `Operator.step` fills it in."""
    consumes: str = ""
    """Path of the artifact the step builds on; `Operator.step` fills in the one it was built on."""
    solution: str
    """Bash appended to solve.sh; runs after the parent's workflow, `set -e` may be on."""
    tests: str
    """Python source of pytest test functions; the modules it uses by name are imported for it."""
    imports: list[str] = Field(default_factory=list)
    """The test module's imports: `Operator.step` adds every module the tests use by name (shipping.py),
    so an operator names only what the code reaches another way."""
    instruction: str
    """Markdown paragraph stating every behaviour the tests check (paths, formats, order)."""
    apt_packages: list[str] = Field(default_factory=list)
    """Debian packages the step needs; added to the Dockerfile where the image lacks them."""
    dockerfile: str = ""
    """Lines appended to the Dockerfile: what the step plants in the environment (a feed, a defect)."""
    produces: list[Artifact] = Field(default_factory=list)


@dataclass
class StepContext:
    """What an operator may use besides the artifact it consumes."""

    discovery: Discovery
    rng: random.Random
    taken_paths: set[str] = field(default_factory=set)
    """Paths that exist already or that earlier steps of this child write: never reuse one."""
    tag: str = "s1"
    """Short unique tag of this step within the lineage, for names that must not collide."""
    history: list[HistoryStep] = field(default_factory=list)
    """Every earlier step of the lineage, this child's earlier steps included."""

    def output_path(self, artifact: Artifact, suffix: str, ext: str) -> str:
        """A fresh output path <dir>/<stem>_<suffix>.<ext> in `output_dir`."""
        directory = output_dir(artifact, self.discovery)
        stem = re.sub(r"[^A-Za-z0-9_]+", "_", artifact.stem)[:40]
        candidate = f"{directory}/{stem}_{suffix}.{ext}"
        n = 2
        while candidate in self.taken_paths:
            candidate = f"{directory}/{stem}_{suffix}{n}.{ext}"
            n += 1
        self.taken_paths.add(candidate)
        return candidate


def work_root(discovery: Discovery) -> str:
    """Where a step's tools, planted inputs and derived files live: the image's work directory (else /srv)."""
    return discovery.workdir.rstrip("/") if discovery.workdir not in ("", "/") else "/srv"


SYSTEM_DIRS = ("/usr/", "/etc/", "/var/", "/opt/", "/lib/", "/root/", "/boot/")
"""Folders the system and its packages own: a step's derived file never goes there."""


def output_dir(artifact: Artifact, discovery: Discovery) -> str:
    """Where a step writes what it derives from `artifact`: beside it, or under <work root>/derived for one of
    the task's inputs (its tests may compare the folder) and for a file in a system folder (an installed
    package's .dist-info, /etc/cron.d, a backup folder whose archives the workflow rotates)."""
    directory = artifact.directory if artifact.kind is not Kind.GIT else str(PurePosixPath(artifact.path).parent)
    if artifact.input or (directory + "/").startswith(SYSTEM_DIRS):
        return f"{work_root(discovery)}/derived"
    return directory


KIND_FIT = {Kind.GIT: 2.0, Kind.SQLITE: 2.0, Kind.C_SOURCE: 1.5, Kind.PYTHON_SOURCE: 1.5, Kind.SHELL_SCRIPT: 1.5}
"""How much more a step on a repository, a database or source code is worth than one on a plain file."""


class Operator:
    """Base of all operators; subclasses set `name`, `kinds`, and implement `build`."""

    name: str = ""
    kinds: tuple[Kind, ...] = ()
    tools: tuple[str, ...] = ()
    """Tools the step runs; when the image lacks one, `apt_packages` must install it."""
    bookkeeping: bool = False
    """Checksums, archives, listings, counts: at most one step of a lineage, never a round's first (so never
    its only one), and no later step builds on what it produces (meaning.py)."""
    final: bool = False
    """A summary or a format conversion of a domain file: an end result, so no later step builds on what
    it produces (statistics of statistics, a count of a conversion add length, not work)."""
    once: bool = False
    """At most one step of this operator in a lineage, whatever its input."""
    uses: tuple[Use, ...] = ()
    """What its arithmetic does with a table's columns (group, sum, statistics, key lookup): it takes only columns
    whose role fits each (proposers/columns.py, picked through operators/kit/roles.py)."""
    changes_input: bool = False
    """The step changes the artifact it consumes (its mode, its Makefile): never on one of the task's inputs,
    which the parent's tests may require unchanged."""
    weight: float = 1.0
    """Base weight in the draw; workflow operators that need reasoning weigh more than one-command ones."""
    converts: bool = False
    """A format conversion (CSV to JSON, a CSV into a new database, a table to CSV): never of what a conversion
    wrote (the round trip CSV to table to CSV), nor, to an end result, of a file the lineage has converted to
    one already (meaning.py)."""
    purpose: Purpose = Purpose.REPORT
    """What its deliverable is for: a lineage's scenario has room for some purposes only, and the instruction
    groups the deliverables by it (scenarios.py, document.py)."""

    exact: bool = False
    """Its instruction fixes the bytes of what it writes (a listing in a stated layout): the tolerance check
    writes none of its outputs another way (validator/tolerance.py)."""
    fixed: tuple[Fixed, ...] = ()
    """What its instruction fixes of its outputs' layout within their form (key order, quoting, ...)."""

    def contract(self, artifact: Artifact) -> OutputContract:
        """The contract of an output it writes: its form by its type, less what the instruction fixes."""
        found = contract_by_type(artifact.path, None, sqlite=artifact.kind is Kind.SQLITE)
        if self.exact:
            return OutputContract(path=artifact.path)
        return found.model_copy(update={"fixed": list(self.fixed)})

    def input_of(self, artifact: Artifact) -> str:
        """What the step consumes, for the rule "no (operator, input) pair twice in a lineage"."""
        return artifact.path

    def fit(self, artifact: Artifact, discovery: Discovery) -> float:
        """Draw weight of this operator on `artifact` (it applies already): domain kinds weigh more."""
        return self.weight * KIND_FIT.get(artifact.kind, 1.0)

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        """Precondition beyond the artifact kind (override to look at details)."""
        return True

    def can_use(self, artifact: Artifact, discovery: Discovery) -> bool:
        if artifact.kind not in self.kinds or (artifact.input and self.changes_input):
            return False
        if not all(discovery.has_tool(t) or t in _INSTALLABLE for t in self.tools):
            return False
        if any(not discovery.has_tool(t) for t in self.tools) and not discovery.has_tool("apt-get"):
            return False
        return self.applies(artifact, discovery)

    def missing_packages(self, discovery: Discovery) -> list[str]:
        return sorted({_INSTALLABLE[t] for t in self.tools if not discovery.has_tool(t) and t in _INSTALLABLE})

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        """The step on `artifact` (operator, consumes and the tests' imports may be left to `step`)."""
        raise NotImplementedError

    def step(self, artifact: Artifact, ctx: StepContext) -> Step:
        """`build`, with what every step has in common filled in: this operator's name, the artifact it was
        built on, and the imports its tests' code needs."""
        built = self.build(artifact, ctx)
        built.operator = built.operator or self.name
        built.consumes = built.consumes or artifact.path
        built.imports = sorted(set(built.imports) | set(used_modules(built.tests)))
        return built


_INSTALLABLE = {
    "sqlite3": "sqlite3",
    "jq": "jq",
    "git": "git",
    "gcc": "gcc",
    "make": "make",
    "zip": "zip",
    "unzip": "unzip",
    "xz": "xz-utils",
    "bzip2": "bzip2",
    "file": "file",
    "openssl": "openssl",
    "python3": "python3",
    "curl": "curl",
    "diff": "diffutils",
    "perl": "perl",
}
"""Tool -> the Debian package that provides it."""

OPERATORS: dict[str, Operator] = {}
"""Filled as the modules of operators/ are imported; `library.py` imports them all."""


def register(cls: type[Operator]) -> type[Operator]:
    """Class decorator: add an operator to the library under its `name`."""
    if not cls.name or cls.name in OPERATORS:
        raise ValueError(f"operator name missing or taken: {cls.name!r}")
    OPERATORS[cls.name] = cls()
    return cls


def q(value: str) -> str:
    """Shell-quote a path or word for a step's bash."""
    import shlex

    return shlex.quote(value)
