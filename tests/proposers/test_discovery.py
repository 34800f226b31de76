"""The task's inputs discovery lists beside what the solution made: files in the image that the
instruction names, or that lie in a folder it names, left as they were."""

from __future__ import annotations

import random

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery, named_inputs
from rst_synth.proposers.procedural.operator import OPERATORS, StepContext
from rst_synth.sandbox.listing import Listing

INSTRUCTION = """Fix `/app/Makefile` so the sources in `/app/src/` build, then summarise `/app/data/readings.txt`
into /app/out/stats.txt. Do not modify anything under /srv/appdata. Logs go to /var/log/app.log."""


def listing(*paths: str, mtime: str = "1") -> Listing:
    return {p: (10, mtime, 0o644) for p in paths}


def test_inputs_are_named_files_and_files_of_named_folders() -> None:
    before = listing(
        "/app/Makefile",
        "/app/src/main.c",
        "/app/src/lib/util.c",
        "/app/src/lib/deep/x/far.c",  # three levels below a named folder
        "/app/src/.hidden.c",
        "/app/data/readings.txt",
        "/app/data/other.txt",  # in a folder the instruction does not name
        "/srv/appdata/a.txt",
        "/app/incoming/r2s1/feed.csv",  # planted by an earlier step for itself
    )
    after = {**before, "/app/Makefile": (12, "2", 0o644), "/app/out/stats.txt": (5, "2", 0o644)}
    inputs = named_inputs(INSTRUCTION + " See /app/incoming/r2s1/feed.csv.", before, after)
    assert inputs == [
        "/app/data/readings.txt",
        "/app/src/lib/util.c",
        "/app/src/main.c",
        "/srv/appdata/a.txt",
    ]  # the Makefile changed: it is an output of the solution, not an input


def test_an_input_is_read_never_changed_or_written_beside() -> None:
    source = Artifact(path="/srv/appdata/notes.csv", kind=Kind.CSV, input=True, new=False)
    found = Discovery(workdir="/app", artifacts=[source], tools=["python3"])
    ctx = StepContext(discovery=found, rng=random.Random(1))
    assert ctx.output_path(source, "stats", "json") == "/app/derived/notes_stats.json"
    made = source.model_copy(update={"input": False, "new": True})
    assert ctx.output_path(made, "stats", "json") == "/srv/appdata/notes_stats.json"
    policy = OPERATORS["permissions-policy"]
    folder = Artifact(path="/app/report/x.csv", kind=Kind.CSV)
    assert policy.changes_input and not policy.can_use(folder.model_copy(update={"input": True}), found)
