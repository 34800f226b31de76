"""Where the database, service and JSON operators may write: never into a git work tree, and for one of
the task's inputs not beside it (`StepContext.output_path` puts its derived files under the work root)."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import output_dir
from rst_synth.proposers.procedural.operators.kit.workflow import inside_git, work_root


def places_ok(artifact: Artifact, discovery: Discovery, *folders: str) -> bool:
    """The artifact and the folders a step writes to lie outside git work trees (a new file there would leave
    `git status` dirty)."""
    root = work_root(discovery)
    writes = [*(f"{root}/{f}/x" for f in folders), f"{output_dir(artifact, discovery)}/x"]
    return not any(inside_git(p, discovery) for p in (artifact.path, *writes))
