"""The offline procedural proposer: extend a task with 1-3 operators chosen by a seeded RNG."""

from __future__ import annotations

import random
import re

from pydantic import BaseModel, Field

from rst_synth.proposers.base import Proposal, ProposalError, register_proposer
from rst_synth.proposers.procedural.artifacts import Artifact
from rst_synth.proposers.procedural.assemble import make_child
from rst_synth.proposers.procedural.discovery import Discovery, DiscoveryCache
from rst_synth.proposers.procedural.operator import OPERATORS, Operator, Step, StepContext
from rst_synth.sandbox import Sandbox
from rst_synth.task import Task
from rst_synth.validator import ValidationReport

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
        round_ = lineage.round if lineage else 1
        failed = [op for k, op in enumerate(rejected.steps, start=1) if f"r{round_}s{k}" in tags]
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
            raise ProposalError("no_applicable_operator", f"no operator applies to the artifacts of {parent.name}")
        tags = [f"r{round_}s{k}" for k in range(1, len(steps) + 1)]
        packages = sorted({p for s in steps for p in s.apt_packages})
        child = make_child(parent, steps, tags, proposer=NAME, packages=packages)
        return Proposal(task=child, steps=[s.operator for s in steps], seed=seed)

    def _choose(self, found: Discovery, rng: random.Random, count: int, exclude: set[str], round_: int) -> list[Step]:
        operators = [op for op in self.operators() if op.name not in exclude]
        available: list[Artifact] = list(found.artifacts)
        ctx = StepContext(discovery=found, rng=rng, taken_paths=found.paths())
        steps: list[Step] = []
        used: set[tuple[str, str]] = set()
        for k in range(1, count + 1):
            candidates = [(op, art) for art in available for op in operators
                          if (op.name, art.path) not in used and op.can_use(art, found)]
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


def _load_library() -> None:
    import rst_synth.proposers.procedural.operators  # noqa: F401  (registers every operator)


@register_proposer(NAME)
def _factory(sandbox: Sandbox, **options: object) -> ProceduralProposer:
    return ProceduralProposer(sandbox, ProceduralConfig.model_validate(options))
