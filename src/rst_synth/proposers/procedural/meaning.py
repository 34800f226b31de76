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
    """A format conversion of what a conversion wrote (a table exported to CSV, then that CSV to JSON; a CSV
    loaded into a database, then its table exported back to CSV), or a conversion to an end result (`final`:
    CSV to JSON) of a file the lineage has converted to one already. A conversion writes a new file
    (`csv-to-sqlite` a new database), so every table of a database a conversion wrote holds a converted file's
    rows, and a table of the seed's own database is still exported."""
    ROUND_TRIP = "round_trip"
    """Any step on what a round trip wrote: a conversion of a conversion's output back to the kind the first
    one read (roster.csv loaded into a table, the table exported to CSV). The file repeats the one the trip
    started from, so the step repeats a step on that file; lineages from before the conversion rule hold such
    files."""


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
    if _round_trip(artifact, lineage.history):
        return Refusal.ROUND_TRIP
    if operator.converts and _converted(artifact.path, lineage.history, final=operator.final):
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


def _conversions(history: list[HistoryStep]) -> list[tuple[HistoryStep, Operator]]:
    return [(step, op) for step in history if (op := OPERATORS.get(step.name)) is not None and op.converts]


def _converted(path: str, history: list[HistoryStep], *, final: bool) -> bool:
    """Whether `path` is what a conversion wrote, or, for a conversion to an end result, a file a conversion to
    an end result has read: one file delivered in two formats. A database loaded from a CSV is where later
    steps work on it, no delivery: a CSV converted to JSON may still be loaded, and the other way round."""
    return any(
        path in step.produces or (final and operator.final and path in step.consumes)
        for step, operator in _conversions(history)
    )


def _round_trip(artifact: Artifact, history: list[HistoryStep]) -> bool:
    """Whether a conversion wrote `artifact` from what a conversion wrote, in a kind the first one reads."""
    conversions = _conversions(history)
    read_by = {path: operator.kinds for step, operator in conversions for path in step.produces}
    return any(
        artifact.path in step.produces and artifact.kind in read_by.get(consumed, ())
        for step, _ in conversions
        for consumed in step.consumes
    )
