"""Steps whose numbers mean nothing to the person in the story, refused before they are built. Each rule has a
reason code and comes from a case found in generated lineages (tests/proposers/procedural/test_meaning.py
holds each case); the column rules (groups of single rows, statistics of signed changes) live with the
columns' roles in `proposers/columns.py`, the operator-specific ones (a schema checked against the file it was
taken from, a partner feed in other units) in their operators.

The proposer asks `refusal` for every (operator, artifact) candidate and counts the refusals by code: the
counts go into the proposer's log, so a run shows what each rule kept out."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum

from rst_synth.proposers.artifacts import Artifact
from rst_synth.proposers.procedural.operator import OPERATORS, Operator
from rst_synth.proposers.procedural.scenarios import Scenario
from rst_synth.task import HistoryStep


class Refusal(StrEnum):
    OFF_SCENARIO = "off_scenario"
    """The step's deliverable is of a kind the lineage's job has no room for (a service in a quarter close)."""
    BOOKKEEPING_AGAIN = "bookkeeping_again"
    """A second bookkeeping step (bundle, checksum list, listing, counts) in one lineage."""
    BOOKKEEPING_ALONE = "bookkeeping_alone"
    """Bookkeeping as the first step of a round: it could be the round's only step."""
    TOOL_AGAIN = "tool_again"
    """A tool of a kind the lineage has already written, generated again for another similar file: one tool
    of a kind per lineage, parameterised, is the work; four copies that differ in a prefix are not."""
    CONVERSION_OF_CONVERSION = "conversion_of_conversion"
    """A format conversion of what a conversion wrote (a table exported to CSV, then that CSV to JSON), or of
    a file the lineage has converted already."""


@dataclass
class Lineage:
    """What the rules read of the lineage so far."""

    history: list[HistoryStep]
    """Every earlier step, this child's earlier steps included."""
    scenario: Scenario
    first_of_round: bool
    """The candidate would be the round's first step."""
    chosen: bool = False
    """The caller named the operators to use (`ProceduralConfig.operators`): it composes the lineage, and
    these rules stand aside."""
    refused: Counter[Refusal] = field(default_factory=Counter)
    """How often each rule refused a candidate in this proposal."""


def refusal(operator: Operator, artifact: Artifact, lineage: Lineage) -> Refusal | None:
    """Why `operator` on `artifact` would compute nothing that matters to the lineage's job, or None."""
    if lineage.chosen:
        return None
    if operator.purpose not in lineage.scenario.purposes:
        return Refusal.OFF_SCENARIO
    if operator.bookkeeping:
        if any(h.bookkeeping for h in lineage.history):
            return Refusal.BOOKKEEPING_AGAIN
        if lineage.first_of_round:
            return Refusal.BOOKKEEPING_ALONE
    if any(h.name == operator.name and _wrote_tool(h) for h in lineage.history):
        return Refusal.TOOL_AGAIN
    if operator.converts and _converted(artifact.path, lineage.history):
        return Refusal.CONVERSION_OF_CONVERSION
    return None


def allowed(operator: Operator, artifact: Artifact, lineage: Lineage) -> bool:
    """`refusal` is None; a refusal is counted."""
    found = refusal(operator, artifact, lineage)
    if found is not None:
        lineage.refused[found] += 1
    return found is None


def _wrote_tool(step: HistoryStep) -> bool:
    return any("/bin/" in path for path in step.produces)


def _converted(path: str, history: list[HistoryStep]) -> bool:
    """Whether `path` is what a conversion wrote, or a file a conversion has read already."""
    for step in history:
        operator = OPERATORS.get(step.name)
        if operator is not None and operator.converts and (path in step.produces or path in step.consumes):
            return True
    return False
