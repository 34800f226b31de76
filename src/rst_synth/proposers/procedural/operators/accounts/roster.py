"""An onboarding roster as data, for the account operators: the roster's rows when a CSV artifact is one
(`username,uid,full_name,team,extra_groups,status`, as HR sends it) and the group list beside it with its GIDs."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operators.accounts.shipped.change_plan import ROSTER_COLUMNS
from rst_synth.proposers.procedural.operators.kit.workflow import known_rows

COLUMNS = ROSTER_COLUMNS


def roster_rows(artifact: Artifact) -> list[dict[str, str]] | None:
    """The roster's rows when the artifact is a whole roster in the onboarding format, else None."""
    found = known_rows(artifact)
    if artifact.kind is not Kind.CSV or found is None or not found[1] or tuple(found[0][0]) != COLUMNS:
        return None
    rows = [dict(zip(COLUMNS, row, strict=True)) for row in found[0][1:]]
    if not all(r["uid"].isdigit() and r["status"] in ("active", "left") for r in rows):
        return None
    return rows if sum(r["status"] == "active" for r in rows) >= 5 else None


def group_list(artifact: Artifact, discovery: Discovery) -> tuple[Artifact, dict[str, int]] | None:
    """The group list beside the roster (`group,gid`), with its GIDs."""
    for other in discovery.artifacts:
        found = known_rows(other) if other.kind is Kind.CSV and other.directory == artifact.directory else None
        if found is not None and found[1] and found[0][0] == ["group", "gid"]:
            if all(r[1].isdigit() for r in found[0][1:]):
                return other, {r[0]: int(r[1]) for r in found[0][1:]}
    return None
