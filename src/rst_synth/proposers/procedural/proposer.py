"""The offline procedural proposer: extend a task with 1-3 operators chosen by a seeded RNG."""

from __future__ import annotations

import hashlib
import logging
import random
import re

from pydantic import BaseModel, Field, ValidationError

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.base import Proposal, ProposalError
from rst_synth.proposers.child import Extension, NewStep, assemble_child
from rst_synth.proposers.columns import Role, words
from rst_synth.proposers.discovery import Discover, Discovery, DiscoveryCache
from rst_synth.proposers.procedural.document import Part, compose
from rst_synth.proposers.procedural.library import OPERATORS, bookkeeping_operators, final_operators
from rst_synth.proposers.procedural.meaning import Lineage, allowed
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext
from rst_synth.proposers.procedural.operators.kit.roles import csv_columns
from rst_synth.proposers.procedural.operators.kit.text import CHECKSUM_LINE
from rst_synth.proposers.procedural.operators.kit.workflow import work_root
from rst_synth.proposers.procedural.scenarios import BY_NAME, Scenario, scenario_for
from rst_synth.proposers.procedural.verify import output_checks
from rst_synth.task import HistoryStep, StepRecord, Task
from rst_synth.validator import Reason, ValidationReport

NAME = "procedural"
log = logging.getLogger(__name__)
_FAILED_STEP = re.compile(r"test_step_(r\d+s\d+)\.py")
_FIRST_PATH = re.compile(r"(/[^\s,:;'\"`]+)")


def _steps_writing(solve_sh: str, added: list[StepRecord], detail: str) -> list[str]:
    """The added steps whose part of solve.sh names the first path of a check's detail (a quality check
    names the output it refused: a redundant or degenerate file), so a repair replaces that step."""
    found = _FIRST_PATH.search(detail)
    if found is None:
        return []
    lines = solve_sh.splitlines()
    return [r.name for r in added if found.group(1) in "\n".join(lines[r.solution_lines[0] - 1 : r.solution_lines[1]])]


class ProceduralConfig(BaseModel):
    """Options of the procedural proposer."""

    min_steps: int = Field(default=1, ge=1)
    """Fewest operators added to a parent in one child."""
    max_steps: int = Field(default=3, ge=1)
    """Most operators added to a parent in one child."""
    chain_bias: float = Field(default=0.7, ge=0, le=1)
    """Chance that a later step builds on what the previous step of the same child produced."""
    operators: list[str] | None = None
    """Restrict to these operator names (default: the whole library). A caller that names them composes the
    lineage itself: the refusal rules of `meaning.py` stand aside."""


class ProceduralProposer:
    """Deterministic, offline, no LLM: the embedded default and the baseline."""

    name = NAME

    def __init__(self, discovery: Discover, config: ProceduralConfig | None = None) -> None:
        self.config = config or ProceduralConfig()
        self._discoveries = DiscoveryCache(discovery)

    async def close(self) -> None:
        """Nothing to release: discovery belongs to the caller."""

    def operators(self) -> list[Operator]:
        names = self.config.operators or sorted(OPERATORS)
        unknown = [n for n in names if n not in OPERATORS]
        if unknown:
            raise ValueError(f"unknown operators: {', '.join(unknown)}")
        return [OPERATORS[n] for n in sorted(names)]

    async def discovery(self, parent: Task) -> Discovery:
        """The parent's artifacts, discovered once per distinct parent."""
        return await self._discoveries(parent)

    async def propose(self, parent: Task, *, seed: int) -> Proposal:
        return await self._propose(parent, seed=seed, exclude=set())

    async def repair(self, parent: Task, rejected: Proposal, report: ValidationReport, *, attempt: int) -> Proposal:
        """Replace the failing step: its operator is excluded and the choice is drawn again."""
        failure = report.first_failure
        tags = set(_FAILED_STEP.findall(failure.output_tail if failure else ""))
        lineage = rejected.task.config.metadata.lineage
        added = lineage.added if lineage else []
        failed = [record.name for record in added if record.tag in tags]
        if not failed and failure is not None:
            failed = _steps_writing(rejected.task.solve_sh, added, failure.detail)
        exclude = set(failed or rejected.steps[-1:])
        return await self._propose(parent, seed=rejected.seed * 1000 + attempt, exclude=exclude)

    async def _propose(self, parent: Task, *, seed: int, exclude: set[str]) -> Proposal:
        found = await self.discovery(parent)
        rng = random.Random(f"{seed}:{draw_key(parent)}")
        lineage = parent.config.metadata.lineage
        round_ = (lineage.round if lineage else 0) + 1
        count = rng.randint(self.config.min_steps, max(self.config.min_steps, self.config.max_steps))
        history = _lineage_history(parent)
        started = lineage is not None and lineage.scenario is not None
        scenario = lineage_scenario(parent, found)
        steps = self._choose(found, rng, count, exclude, round_, history, scenario)
        if not steps:
            raise ProposalError(Reason.NO_APPLICABLE_OPERATOR, f"no operator applies to the artifacts of {parent.name}")
        tags = [f"r{round_}s{k}" for k in range(1, len(steps) + 1)]
        extension = Extension(
            steps=[_new_step(step, tag) for step, tag in zip(steps, tags, strict=True)],
            packages=sorted({p for s in steps for p in s.apt_packages}),
            dockerfile_append="".join(s.dockerfile.strip("\n") + "\n" for s in steps if s.dockerfile.strip()),
        )
        purposes = {tag: OPERATORS[s.operator].purpose for s, tag in zip(steps, tags, strict=True)}

        def write(instruction: str, added: list[NewStep]) -> tuple[str, list[tuple[int, int]]]:
            parts = [Part(purposes[s.tag], s.instruction) for s in added]
            return compose(instruction, scenario, parts, started=started)

        child = assemble_child(parent, extension, proposer=NAME, compose=write)
        assert child.config.metadata.lineage is not None  # assemble_child writes one
        child.config.metadata.lineage.scenario = scenario.name
        return Proposal(task=child, steps=[s.operator for s in steps], seed=seed)

    def _choose(
        self,
        found: Discovery,
        rng: random.Random,
        count: int,
        exclude: set[str],
        round_: int,
        history: list[HistoryStep],
        scenario: Scenario,
    ) -> list[Step]:
        operators = [op for op in self.operators() if op.name not in exclude]
        available = domain_artifacts(found.artifacts, history)
        history = list(history)
        ctx = StepContext(discovery=found, rng=rng, taken_paths=found.paths(), history=history)
        steps: list[Step] = []
        used = _used_inputs(history, found)
        root = work_root(found) + "/"  # bookkeeping of /etc/group or a home's dotfiles is no result at all
        chosen = self.config.operators is not None
        lineage = Lineage(history=history, scenario=scenario, first_of_round=True, chosen=chosen)
        for k in range(1, count + 1):
            lineage.first_of_round = k == 1
            done = {h.name for h in history}
            # The same operator on its own output (a quarantine of the accepted rows of a quarantine) is
            # the earlier step again under a new file name.
            made_by = {path: h.name for h in history for path in h.produces}
            # One operator twice in a child is one chore done on two similar files: the second waits a round.
            in_child = {s.operator for s in steps}
            candidates = [
                (op, art)
                for art in available
                for op in operators
                if (op.name, op.input_of(art)) not in used
                and op.name not in in_child
                and made_by.get(art.path) != op.name
                and not (op.once and op.name in done)
                and (not op.bookkeeping or art.path.startswith(root))
                and op.can_use(art, found)
                and allowed(op, art, lineage)
            ]
            if steps and steps[-1].produces and rng.random() < self.config.chain_bias:
                fresh = {a.path for a in steps[-1].produces}
                # chain work on the fresh output; bookkeeping of it (its checksum, a bundle of it) is no chain,
                # and preferring it would make bookkeeping the usual second step wherever no domain step applies
                chained = [c for c in candidates if c[1].path in fresh and not c[0].bookkeeping]
                candidates = chained or candidates
            if not candidates:
                break
            operator, artifact = _draw(candidates, found, rng)
            ctx.tag = f"r{round_}s{k}"
            step = operator.step(artifact, ctx)
            derived = f"{root}derived"  # where outputs of the task's inputs go (StepContext.output_path)
            if any(a.path.startswith(derived + "/") for a in step.produces):
                step.solution = f"mkdir -p {derived}\n{step.solution}"
            step.apt_packages = sorted(set(step.apt_packages) | set(operator.missing_packages(found)))
            checks = output_checks(step.produces, {*found.tools, *operator.tools})
            step.solution = step.solution.rstrip("\n") + "\n" + checks
            steps.append(step)
            used.add((operator.name, operator.input_of(artifact)))
            history.append(_history_step(step, operator))
            for produced in step.produces:
                produced.bookkeeping = produced.bookkeeping or operator.bookkeeping
            if not operator.final:
                available.extend(a for a in step.produces if not a.bookkeeping and not a.end_result)
        refused = {code.value: n for code, n in sorted(lineage.refused.items())}
        log.info(
            "procedural draw: %s refused",
            sum(refused.values()),
            extra={"fields": {"round": round_, "refused": refused}},
        )
        return steps


def _draw(
    candidates: list[tuple[Operator, Artifact]], found: Discovery, rng: random.Random
) -> tuple[Operator, Artifact]:
    """An operator first, weighed by its best fit, then one of its inputs by fit: an operator that applies to
    every CSV file (a conversion) would otherwise outnumber the reasoning operators that apply to one."""
    by_operator: dict[str, list[tuple[Operator, Artifact]]] = {}
    for pair in candidates:
        by_operator.setdefault(pair[0].name, []).append(pair)
    names = list(by_operator)
    best = [max(op.fit(art, found) for op, art in by_operator[name]) for name in names]
    pairs = by_operator[rng.choices(names, weights=best)[0]]
    return rng.choices(pairs, weights=[op.fit(art, found) for op, art in pairs])[0]


def looks_bookkeeping(artifact: Artifact) -> bool:
    """Archives and checksum lists, whoever made them: listing or hashing them again is no work."""
    if artifact.kind is Kind.ARCHIVE:
        return True
    lines = [line for line in artifact.sample.splitlines() if line.strip()]
    return artifact.kind is Kind.TEXT and bool(lines) and all(CHECKSUM_LINE.match(line) for line in lines)


_REPORT_WORDS = frozenset({"reason", "reasons", "error", "errors", "problem", "issue", "violation", "rule"})


def looks_report(artifact: Artifact) -> bool:
    """A report of rejects or problems, whoever wrote it: row numbers of another file with a reason beside them
    (`record,reason`). People read it; totalling its row numbers or feeding it on as data means nothing."""
    if artifact.kind is not Kind.CSV:
        return False
    columns = csv_columns(artifact)
    numbered = any(c.role is Role.ROW_NUMBER for c in columns.values())
    explained = any(set(words(name)) & _REPORT_WORDS for name in columns)
    measured = any(c.role in (Role.ADDITIVE, Role.INTENSIVE, Role.CHANGE) for c in columns.values())
    return numbered and explained and not measured


def domain_artifacts(artifacts: list[Artifact], history: list[HistoryStep]) -> list[Artifact]:
    """The artifacts a step may build on: none that a bookkeeping step or a summary (`Operator.final`) of
    the lineage wrote, none inside a git work tree (the repository stands for them), and one of several
    copies of the same text (an installed module and its build copy would give a step the same output
    twice)."""
    finals = final_operators()
    written = {path for h in history if h.bookkeeping or h.name in finals for path in h.produces}
    written |= {path for h in history for path in h.ends}
    # A file in a git work tree is the repository's: a step next to it would leave `git status` dirty.
    trees = tuple(a.path.rstrip("/") + "/" for a in artifacts if a.kind is Kind.GIT)
    kept, seen = [], set()
    for artifact in artifacts:
        if artifact.bookkeeping or artifact.path in written or looks_bookkeeping(artifact) or looks_report(artifact):
            continue
        if artifact.kind is not Kind.GIT and artifact.path.startswith(trees):
            continue
        content = (artifact.kind, artifact.size, artifact.sample)
        if artifact.sample and len(artifact.sample.encode("utf-8")) == artifact.size:
            if content in seen:
                continue
            seen.add(content)
        kept.append(artifact)
    return kept


def _used_inputs(history: list[HistoryStep], found: Discovery) -> set[tuple[str, str]]:
    """The (operator, input) pairs of the lineage: no pair twice, the same step again would add length,
    not work. An operator's input is what `input_of` names (a file, a folder, the columns a tool's
    contract names), read off the consumed artifact where the parent still has it."""
    by_path = {a.path: a for a in found.artifacts}
    used = set()
    for h in history:
        for path in h.consumes:
            used.add((h.name, path))
            if h.name in OPERATORS and path in by_path:
                used.add((h.name, OPERATORS[h.name].input_of(by_path[path])))
    return used


def lineage_scenario(parent: Task, found: Discovery) -> Scenario:
    """The scenario the parent's lineage serves: the one its first child took, else the one the seed's
    instruction and artifacts speak of (drawn by the lineage's root among equals)."""
    lineage = parent.config.metadata.lineage
    if lineage is not None and lineage.scenario in BY_NAME:
        return BY_NAME[lineage.scenario]
    root = lineage.root if lineage is not None and lineage.root else parent.name
    return scenario_for((a.kind for a in found.artifacts), parent.instruction, root)


def draw_key(parent: Task) -> str:
    """What a parent's draws are seeded by: a seed's workflow hash, a child's lineage (its root and every step's
    operator, inputs and outputs). Not a child's solution bytes: generated code laid out anew (a refactor of an
    operator's shipped source) must not change what the proposer draws for the same workflow."""
    lineage = parent.config.metadata.lineage
    if lineage is None or lineage.round == 0 or not lineage.root:
        return parent.workflow_hash()
    steps = [(h.name, h.consumes, h.produces) for h in _lineage_history(parent)]
    return hashlib.sha256(repr((lineage.root, lineage.round, steps)).encode()).hexdigest()[:16]


def _lineage_history(parent: Task) -> list[HistoryStep]:
    lineage = parent.config.metadata.lineage
    if lineage is None:
        return []
    return list(lineage.history) or [HistoryStep(name=r.name, consumes=r.consumes) for r in lineage.added]


def _history_step(step: Step, operator: Operator) -> HistoryStep:
    return HistoryStep(
        name=step.operator,
        consumes=[step.consumes],
        produces=[a.path for a in step.produces],
        bookkeeping=operator.bookkeeping,
        ends=[a.path for a in step.produces if a.end_result],
    )


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
        produces=[a.path for a in step.produces],
        bookkeeping=step.operator in bookkeeping_operators(),
        ends=[a.path for a in step.produces if a.end_result],
        outputs=[OPERATORS[step.operator].contract(a) for a in step.produces],
    )


def make_procedural(
    discovery: Discover | None = None, cache_dir: object = None, **options: object
) -> ProceduralProposer:
    """The registry's factory: options are ProceduralConfig fields; it needs discovery."""
    if discovery is None:
        raise ValueError("the procedural proposer needs discovery to find the parent's artifacts")
    try:
        config = ProceduralConfig.model_validate(options)
    except ValidationError as exc:
        raise ValueError(f"procedural proposer: {exc.errors()[0]['loc'][0]}: {exc.errors()[0]['msg']}") from None
    proposer = ProceduralProposer(discovery, config)
    proposer.operators()  # unknown operator names: a ValueError now, not at the first proposal
    return proposer
