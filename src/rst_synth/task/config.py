"""task.toml as pydantic models, compatible with Harbor's task format.

Every model allows extra keys, so a field we do not know (a newer Harbor field, a
user's own table) survives a load/dump round trip unchanged.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

import tomli_w
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from rst_synth.task.errors import TaskFormatError

NetworkMode = Literal["no-network", "public", "allowlist"]


class _Section(BaseModel):
    model_config = ConfigDict(extra="allow", validate_assignment=True)


class TaskInfo(_Section):
    """The [task] table: the package identity of the task."""

    name: str
    """Package name, `org/name` as Harbor wants it."""
    description: str = ""
    """One line saying what the task is about."""
    keywords: list[str] = Field(default_factory=list)
    """Search keywords."""


Form = Literal["bytes", "json", "csv", "toml", "sqlite", "lines"]
Fixed = Literal["key_order", "layout", "numbers", "quoting", "line_order", "newline"]
FIXED_BY_FORM: dict[str, tuple[Fixed, ...]] = {
    "bytes": (),
    "json": ("key_order", "layout", "numbers", "newline"),
    "csv": ("quoting",),
    "toml": ("key_order",),
    "sqlite": (),
    "lines": ("line_order",),
}
"""The layout details each form can fix: those the tolerance check would otherwise write another way
(validator/contracts.py `rewritten`). Bytes fix everything, a database's layout nothing."""


class OutputContract(_Section):
    """What the instruction fixes about one output a step writes (the tolerance check rewrites the rest,
    validator/tolerance.py): its exact bytes, or a parsed form with the layout details listed in `fixed`."""

    path: str
    form: Form = "bytes"
    """`bytes`: exactly these bytes; else the parsed form that counts (a JSON value, CSV rows, a TOML
    document, SQLite rows and schema, a set of lines)."""
    fixed: list[Fixed] = Field(default_factory=list)
    """Layout the instruction fixes within the form: `key_order`, `layout` (indentation and spacing),
    `numbers` (how a number is written), `quoting` (CSV), `line_order`, `newline` (a final newline)."""


class StepRecord(_Section):
    """One step a task added to its parent's workflow ([[metadata.lineage.added]]): where its parts
    sit in the task's files, so a proposer can take a child apart again without parsing comments."""

    name: str
    """The operator (procedural) or workflow theme (llm) of the step."""
    tag: str
    """Unique within the lineage, e.g. "r2s1": round 2, step 1."""
    consumes: list[str] = Field(default_factory=list)
    """Paths of the artifacts the step builds on."""
    solution_lines: tuple[int, int]
    """First and last line (1-based, inclusive) of the step's code in solution/solve.sh."""
    instruction_lines: tuple[int, int]
    """First and last line (1-based, inclusive) of the step's paragraph in instruction.md."""
    test_module: str
    """The test module holding the step's checks, relative to the task directory."""
    outputs: list[OutputContract] = Field(default_factory=list)
    """The contracts of the files the step writes, where its proposer declares them."""


class HistoryStep(_Section):
    """One step of a whole lineage ([[metadata.lineage.history]]): what it consumed and produced, so a
    proposer sees every earlier step of the chain without reading the ancestors' task.toml files."""

    name: str
    """The operator (procedural) or workflow theme (llm) of the step."""
    consumes: list[str] = Field(default_factory=list)
    """Paths of the artifacts the step built on."""
    produces: list[str] = Field(default_factory=list)
    """Paths of the files the step wrote, where the proposer knows them."""
    bookkeeping: bool = False
    """A bookkeeping step (checksum list, archive, listing, counts): no later step builds on its outputs."""
    ends: list[str] = Field(default_factory=list)
    """Of `produces`, the end results (a report of rejects, a summary): no later step builds on them."""


class Lineage(_Section):
    """Where a synthesized task comes from ([metadata.lineage])."""

    parent: str | None = None
    """Task name of the parent, None for a seed."""
    parent_path: str | None = None
    """The parent's directory, relative to this task's directory, where it is known."""
    root: str | None = None
    """Task name of the seed this lineage started from."""
    round: int = 0
    """Synthesis round that produced the task; seeds are round 0."""
    proposer: str | None = None
    """Short name of the proposer that made it."""
    steps: list[str] = Field(default_factory=list)
    """Names of the steps added to the parent's workflow, in order."""
    added: list[StepRecord] = Field(default_factory=list)
    """Where each added step sits in the task's files (empty for seeds and older tasks)."""
    history: list[HistoryStep] = Field(default_factory=list)
    """Every step since the seed, this task's own added steps last (empty for seeds and older tasks)."""
    scenario: str | None = None
    """The job the lineage serves (the procedural proposer's scenarios), taken by its first child and kept."""


class Figures(BaseModel):
    """A task's measured figures: the one model behind [metadata.metrics], a validation report's
    figures and the store's task rows (docs/measures.md)."""

    solution_lines: int | None = None
    """Non-blank, non-comment lines of the reference solution."""
    executed_commands: int | None = None
    """Simple commands bash executed during the oracle run (xtrace count)."""
    oracle_sec: float | None = None
    """Wall time of the oracle run."""
    test_sec: float | None = None
    """Wall time of the tests (`test.sh`) after the oracle run: what the verifier's limit scales with."""
    build_sec: float | None = None
    """Wall time of the image build (0 when the image was cached)."""
    tokens_in: int | None = None
    """Prompt tokens the proposer's model calls cost (None for offline proposers)."""
    tokens_out: int | None = None
    """Completion tokens the proposer's model calls cost."""
    cost_usd: float | None = None
    """What the proposer's model calls cost, repairs included."""
    repair_attempts: int | None = None
    """Repairs it took before the task was accepted."""
    kill_rate: float | None = None
    """Share of the mutation check's edits of the new outputs (deletions, one-value and one-line
    changes) that made the tests fail; None where the check did not run or found no new output."""
    solve_rate: float | None = None
    """Share of the solver agent's attempts that solved the task during synthesis
    (`rst synth --solver-model`); None where no solver ran."""


class Metrics(_Section, Figures):
    """[metadata.metrics]: the figures measured while validating the task; never typed by hand."""


class SolverEvidence(BaseModel):
    """What an agent's attempts on a task did: how many solved it, in how many commands, and the
    commands of the solved attempt that ran fewest. A proposer is shown it to make the next step harder."""

    solved: int = Field(ge=0)
    k: int = Field(ge=1)
    """Attempts made."""
    commands_per_solved: list[int] = Field(default_factory=list)
    """Commands each solved attempt ran (those whose trajectory could be read), in attempt order."""
    commands: list[str] = Field(default_factory=list)
    """The commands of the solved attempt that ran fewest, in order (cut where gathered: evaluation/evidence.py)."""


class SolveRate(_Section):
    """How often one agent solved the task ([metadata.solve_rate.<eval id>])."""

    rate: float = Field(ge=0, le=1)
    """Attempts with reward 1 divided by `k`."""
    agent: str | None = None
    """The agent's short name (None where an older export did not record it)."""
    model: str | None = None
    """The model behind the agent."""
    k: int | None = Field(default=None, ge=1)
    """Attempts the rate is over."""
    evidence: SolverEvidence | None = Field(default=None, exclude=True)
    """In memory only, never written to task.toml: the attempts behind the rate as the engine read them
    from its store, for the extend prompt of a child."""


class Metadata(_Section):
    """The [metadata] table: free-form in Harbor, with our lineage and metrics inside."""

    difficulty: str | None = None
    """Computed for synthesized tasks, never inherited: from an agent's solve rate where one ran,
    else from the measured size (task.metrics.label_difficulty)."""
    difficulty_source: str | None = None
    """What `difficulty` was computed from: "size", or the key in `solve_rate` whose rate set it."""
    category: str | None = None
    tags: list[str] = Field(default_factory=list)
    lineage: Lineage | None = None
    metrics: Metrics | None = None
    solve_rate: dict[str, SolveRate] | None = None
    """Per eval id (`<agent>-<model>`, the solver's `solver-<model>`): the share of that agent's
    attempts that solved the task, with the agent, model and k; the solver's is written at
    acceptance, `rst eval`'s by `rst export`."""

    @field_validator("solve_rate", mode="before")
    @classmethod
    def _bare_shares(cls, value: Any) -> Any:
        # Exports made before agent, model and k were recorded wrote a bare share per eval id.
        if isinstance(value, dict):
            return {key: {"rate": share} if isinstance(share, (int, float)) else share for key, share in value.items()}
        return value


class VerifierConfig(_Section):
    """The [verifier] table."""

    timeout_sec: float = Field(default=600.0, gt=0)
    """Seconds `tests/test.sh` may run."""


class AgentConfig(_Section):
    """The [agent] table."""

    timeout_sec: float | None = Field(default=None, gt=0)
    """Seconds the agent (or the oracle) may work; None means the validator's default."""


class EnvironmentConfig(_Section):
    """The [environment] table."""

    build_timeout_sec: float = Field(default=600.0, gt=0)
    """Seconds the image build may take."""
    cpus: float | None = Field(default=None, gt=0)
    """CPU limit of the container."""
    memory_mb: int | None = Field(default=None, gt=0)
    """Memory limit of the container."""
    storage_mb: int | None = Field(default=None, gt=0)
    """Disk limit; recorded, applied only where the engine's storage driver supports it."""
    network_mode: NetworkMode | None = None
    """Harbor's network policy; anything but `public` means no network here."""
    allow_internet: bool | None = None
    """Harbor's older spelling of `network_mode = "public"`."""

    @property
    def network_enabled(self) -> bool:
        # Validation runs offline unless the task says plainly that it needs the network.
        if self.network_mode is not None:
            return self.network_mode == "public"
        return bool(self.allow_internet)


class TaskConfig(_Section):
    """The whole task.toml."""

    schema_version: str = "1.4"
    task: TaskInfo | None = None
    metadata: Metadata = Field(default_factory=Metadata)
    verifier: VerifierConfig = Field(default_factory=VerifierConfig)
    agent: AgentConfig = Field(default_factory=AgentConfig)
    environment: EnvironmentConfig = Field(default_factory=EnvironmentConfig)

    @classmethod
    def from_toml(cls, text: str, path: Path | str = "task.toml") -> TaskConfig:
        """Parse task.toml text; any problem becomes one TaskFormatError line."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise TaskFormatError(path, f"invalid TOML: {exc}") from None
        except RecursionError:  # arrays or tables nested past Python's recursion limit
            raise TaskFormatError(path, "invalid TOML: nested too deeply") from None
        if "version" in data and "schema_version" not in data:
            data["schema_version"] = str(data.pop("version"))  # Harbor's older key
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise TaskFormatError(path, _describe(exc)) from None

    @classmethod
    def load(cls, path: Path) -> TaskConfig:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise TaskFormatError(path, "missing required file") from None
        except UnicodeDecodeError:
            raise TaskFormatError(path, "not UTF-8 text") from None
        return cls.from_toml(text, path)

    def to_toml(self) -> str:
        return tomli_w.dumps(_without_none(self.model_dump(mode="json")))

    def dump(self, path: Path) -> None:
        path.write_text(self.to_toml(), encoding="utf-8")


def _describe(exc: ValidationError) -> str:
    """First validation error as `[table].field: message`."""
    err = exc.errors()[0]
    loc = [str(part) for part in err["loc"]]
    where = f"[{'.'.join(loc[:-1])}].{loc[-1]}" if len(loc) > 1 else (loc[0] if loc else "?")
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{where}: {err['msg']}{more}"


def _without_none(value: Any) -> Any:
    """TOML has no null: drop None values, keep everything else."""
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_none(v) for v in value if v is not None]
    return value
