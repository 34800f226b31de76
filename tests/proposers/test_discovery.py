"""The task's inputs discovery lists beside what the solution made: files in the image that the
instruction names, or that lie in a folder it names, left as they were."""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery, discover, named_inputs
from rst_synth.proposers.procedural.operator import OPERATORS, StepContext
from rst_synth.sandbox import ExecResult, Limits, SandboxError
from rst_synth.sandbox.listing import Listing
from rst_synth.task import Task
from tests.support.fakes import FakeContainer, FakeSandbox
from tests.support.tasks import write_task

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


NESTED = """
from rst_synth.proposers.discovery import named_inputs
files = {p: (10, "1", 0o644) for p in ("/srv/appdata/records/2026-01.csv", "/srv/appdata/config/app.conf")}
print(named_inputs("Back up /srv/appdata into /var/backups; keep /srv tidy.", files, files))
"""


def test_the_deepest_named_folder_decides_whatever_the_string_hashes() -> None:
    """`/srv` and `/srv/appdata` both named: the files two levels below `/srv/appdata` are inputs. A
    set's order (it follows PYTHONHASHSEED) once decided, so one seed's children differed between runs."""
    seen = {
        subprocess.run(
            [sys.executable, "-c", NESTED],
            env={**os.environ, "PYTHONHASHSEED": str(hash_seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for hash_seed in range(6)
    }
    assert seen == {"['/srv/appdata/config/app.conf', '/srv/appdata/records/2026-01.csv']\n"}


def test_an_input_is_read_never_changed_or_written_beside() -> None:
    source = Artifact(path="/srv/appdata/notes.csv", kind=Kind.CSV, input=True, new=False)
    found = Discovery(workdir="/app", artifacts=[source], tools=["python3"])
    ctx = StepContext(discovery=found, rng=random.Random(1))
    assert ctx.output_path(source, "stats", "json") == "/app/derived/notes_stats.json"
    made = source.model_copy(update={"input": False, "new": True})
    assert ctx.output_path(made, "stats", "json") == "/srv/appdata/notes_stats.json"
    # nothing derived goes into a folder the system owns: an installed package's metadata, a crontab folder
    for path in ("/usr/local/lib/python3.11/dist-packages/x-1.0.dist-info/METADATA", "/etc/cron.d/backup"):
        system = Artifact(path=path, kind=Kind.TEXT)
        assert ctx.output_path(system, "schema", "json").startswith("/app/derived/"), path
    policy = OPERATORS["permissions-policy"]
    folder = Artifact(path="/app/report/x.csv", kind=Kind.CSV)
    assert policy.changes_input and not policy.can_use(folder.model_copy(update={"input": True}), found)


def test_build_files_are_the_programs_not_text_to_count() -> None:
    """A Makefile or a -MMD dependency file is how a program is built: no line, word or pattern counts of it."""
    from rst_synth.proposers.artifacts import classify

    makefile = b"CC = gcc\nnumstat: build/main.o\n\t$(CC) -o $@ $^\n"
    deps = b"build/main.o: src/main.c src/stats.h\nsrc/stats.h:\n"
    for path, content in (("/app/Makefile", makefile), ("/app/build/main.d", deps), ("/app/rules.mk", makefile)):
        kind, _, _ = classify(path, content)
        assert kind is Kind.BUILD, path
        artifact = Artifact(path=path, kind=kind, size=len(content), sample=content.decode())
        found = Discovery(workdir="/app", artifacts=[artifact], tools=["python3", "sha256sum", "tar", "gzip"])
        text_ops = [op for op in OPERATORS.values() if Kind.TEXT in op.kinds and op.can_use(artifact, found)]
        assert text_ops == [], path
    assert classify("/app/notes.d", b"not a make rule\n")[0] is Kind.TEXT


class StallingSurvey(FakeSandbox):
    """The tools survey of discovery runs out of time in the first `stalls` containers (a loaded engine)."""

    def __init__(self, stalls: int) -> None:
        super().__init__()
        self.stalls = stalls

    @asynccontextmanager
    async def container(self, image: str, limits: Limits) -> AsyncIterator[FakeContainer]:
        async with super().container(image, limits) as box:
            stall, run = self.stalls > 0, box.exec
            self.stalls -= 1

            async def exec(command: str, **options: Any) -> ExecResult:
                if stall and "command -v" in command:
                    return ExecResult(exit_code=None, output="", duration_sec=120.0, timed_out=True)
                return await run(command, **options)

            box.exec = exec  # type: ignore[method-assign]
            yield box


def test_a_survey_that_did_not_finish_is_run_again_not_taken_for_no_tools(tmp_path: Path) -> None:
    """An empty tools list once made every operator inapplicable: "no operator applies" for a parent
    that had plenty, when the engine was slow."""
    task = Task.load(write_task(tmp_path, solve="touch /app/made\n"))
    once = StallingSurvey(stalls=1)
    found = asyncio.run(discover(once, task))
    assert once.containers == 2 and isinstance(found, Discovery)  # the second container answered
    with pytest.raises(SandboxError, match="survey of tools timed out"):
        asyncio.run(discover(StallingSurvey(stalls=2), task))
