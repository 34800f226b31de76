"""The offline procedural proposer: extend a task with 1-3 operators chosen by a seeded RNG."""

from __future__ import annotations

import random
import re

from pydantic import BaseModel, Field, ValidationError

from rst_synth.proposers.artifacts import Artifact
from rst_synth.proposers.base import Proposal, ProposalError
from rst_synth.proposers.child import Extension, NewStep, assemble_child
from rst_synth.proposers.discovery import Discovery, DiscoveryCache
from rst_synth.proposers.procedural.operator import OPERATORS, Operator, Step, StepContext
from rst_synth.sandbox import Sandbox
from rst_synth.task import Task
from rst_synth.validator import Reason, ValidationReport

NAME = "procedural"
_FAILED_STEP = re.compile(r"test_step_(r\d+s\d+)\.py")


class ProceduralConfig(BaseModel):
    """Options of the procedural proposer."""

    min_steps: int = Field(default=1, ge=1)
    """Fewest operators added to a parent in one child."""
    max_steps: int = Field(default=3, ge=1)
    """Most operators added to a parent in one child."""
    chain_bias: float = Field(default=0.7, ge=0, le=1)
    """Chance that a later step builds on what the previous step of the same child produced."""
    operators: list[str] | None = None
    """Restrict to these operator names (default: the whole library)."""


class ProceduralProposer:
    """Deterministic, offline, no LLM: the embedded default and the baseline."""

    name = NAME

    def __init__(self, sandbox: Sandbox, config: ProceduralConfig | None = None) -> None:
        self.sandbox = sandbox
        self.config = config or ProceduralConfig()
        self._discoveries = DiscoveryCache()

    async def close(self) -> None:
        """Nothing to release: the sandbox belongs to the caller."""

    def operators(self) -> list[Operator]:
        _load_library()
        names = self.config.operators or sorted(OPERATORS)
        unknown = [n for n in names if n not in OPERATORS]
        if unknown:
            raise ValueError(f"unknown operators: {', '.join(unknown)}")
        return [OPERATORS[n] for n in sorted(names)]

    async def discovery(self, parent: Task) -> Discovery:
        """The parent's artifacts, discovered once per distinct parent."""
        return await self._discoveries.get(self.sandbox, parent)

    async def propose(self, parent: Task, *, seed: int) -> Proposal:
        return await self._propose(parent, seed=seed, exclude=set())

    async def repair(self, parent: Task, rejected: Proposal, report: ValidationReport, *, attempt: int) -> Proposal:
        """Replace the failing step: its operator is excluded and the choice is drawn again."""
        failure = report.first_failure
        tags = set(_FAILED_STEP.findall(failure.output_tail if failure else ""))
        lineage = rejected.task.config.metadata.lineage
        failed = [record.name for record in (lineage.added if lineage else []) if record.tag in tags]
        exclude = set(failed or rejected.steps[-1:])
        return await self._propose(parent, seed=rejected.seed * 1000 + attempt, exclude=exclude)

    async def _propose(self, parent: Task, *, seed: int, exclude: set[str]) -> Proposal:
        found = await self.discovery(parent)
        rng = random.Random(f"{seed}:{parent.workflow_hash()}")
        lineage = parent.config.metadata.lineage
        round_ = (lineage.round if lineage else 0) + 1
        count = rng.randint(self.config.min_steps, max(self.config.min_steps, self.config.max_steps))
        steps = self._choose(found, rng, count, exclude, round_)
        if not steps:
            raise ProposalError(Reason.NO_APPLICABLE_OPERATOR, f"no operator applies to the artifacts of {parent.name}")
        tags = [f"r{round_}s{k}" for k in range(1, len(steps) + 1)]
        extension = Extension(
            steps=[_new_step(step, tag) for step, tag in zip(steps, tags, strict=True)],
            packages=sorted({p for s in steps for p in s.apt_packages}),
        )
        child = assemble_child(parent, extension, proposer=NAME)
        return Proposal(task=child, steps=[s.operator for s in steps], seed=seed)

    def _choose(self, found: Discovery, rng: random.Random, count: int, exclude: set[str], round_: int) -> list[Step]:
        operators = [op for op in self.operators() if op.name not in exclude]
        available: list[Artifact] = list(found.artifacts)
        ctx = StepContext(discovery=found, rng=rng, taken_paths=found.paths())
        steps: list[Step] = []
        used: set[tuple[str, str]] = set()
        for k in range(1, count + 1):
            candidates = [
                (op, art)
                for art in available
                for op in operators
                if (op.name, art.path) not in used and op.can_use(art, found)
            ]
            if steps and steps[-1].produces and rng.random() < self.config.chain_bias:
                fresh = {a.path for a in steps[-1].produces}
                chained = [c for c in candidates if c[1].path in fresh]
                candidates = chained or candidates
            if not candidates:
                break
            operator, artifact = rng.choice(candidates)
            ctx.tag = f"r{round_}s{k}"
            step = operator.build(artifact, ctx)
            step.apt_packages = sorted(set(step.apt_packages) | set(operator.missing_packages(found)))
            steps.append(step)
            used.add((operator.name, artifact.path))
            available.extend(step.produces)
        return steps


def _new_step(step: Step, tag: str) -> NewStep:
    imports = "".join(f"import {m}\n" for m in sorted(set(step.imports) | {"pathlib"}))
    header = f'"""Checks of step {tag} ({step.operator}), computed from {step.consumes}."""\n'
    return NewStep(
        name=step.operator,
        tag=tag,
        consumes=[step.consumes],
        solution=step.solution,
        test_module=f"{header}{imports}\n\n{step.tests.strip()}\n",
        instruction=step.instruction.strip(),
    )


def _load_library() -> None:
    import rst_synth.proposers.procedural.operators  # noqa: F401  (registers every operator)


def make_procedural(sandbox: Sandbox | None = None, cache_dir: object = None, **options: object) -> ProceduralProposer:
    """The registry's factory: options are ProceduralConfig fields; it needs a sandbox (discovery)."""
    if sandbox is None:
        raise ValueError("the procedural proposer needs a sandbox to discover the parent's artifacts")
    try:
        config = ProceduralConfig.model_validate(options)
    except ValidationError as exc:
        raise ValueError(f"procedural proposer: {exc.errors()[0]['loc'][0]}: {exc.errors()[0]['msg']}") from None
    proposer = ProceduralProposer(sandbox, config)
    proposer.operators()  # unknown operator names: a ValueError now, not at the first proposal
    return proposer
