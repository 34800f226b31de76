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
from rst_synth.proposers.discovery import Discovery, changed_files, discover, named_inputs
from rst_synth.proposers.llm.prompts import describe_artifact
from rst_synth.proposers.procedural.operator import OPERATORS, StepContext
from rst_synth.sandbox import ExecResult, FileDigest, Limits, SandboxError
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


def test_a_file_the_solution_left_with_the_same_bytes_is_no_artifact() -> None:
    """A checkout or a `sed -i` that matched nothing rewrites a file: a newer mtime, the same bytes. Taken
    for a change, the prompt called the task's data and a repository's tracked files "modified"."""
    before = listing("/app/data/sales.csv", "/app/repo/README.md", "/app/repo/.git/index", "/app/run.sh", "/app/a")
    after = {
        **listing("/app/data/sales.csv", "/app/repo/README.md", "/app/repo/.git/index", "/app/a", mtime="2"),
        "/app/run.sh": (10, "1", 0o755),  # made executable
        "/app/out.csv": (10, "2", 0o644),
    }
    same = {path: FileDigest(10, "0" * 64) for path in before}
    made = {**same, "/app/a": FileDigest(10, "1" * 64), "/app/repo/.git/index": FileDigest(10, "2" * 64)}
    assert changed_files(before, after, same, made) == ["/app/a", "/app/out.csv", "/app/run.sh"]
    unhashed = changed_files(before, after, {}, {})  # the listing decides, the index never
    assert unhashed == sorted(p for p in after if not p.endswith("/.git/index"))
    sales = Artifact(path="/app/data/sales.csv", kind=Kind.CSV, input=True, new=False)
    assert "input, unchanged" in describe_artifact(sales, 0) and "modified" not in describe_artifact(sales, 0)
    assert "modified" in describe_artifact(Artifact(path="/app/a", kind=Kind.TEXT, new=False), 0)


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


class Checkout(FakeContainer):
    """An image with a data file and a repository's tracked file; its solution rewrites both with the same
    bytes (a newer mtime, as a checkout leaves) and writes /app/out.txt."""

    def __init__(self, sandbox: FakeSandbox) -> None:
        super().__init__(sandbox)
        self.files.update({"/app/data/sales.csv": b"region,amount\nnorth,3\n", "/app/repo/README.md": b"hi\n"})
        self.mtime = 1

    async def exec(self, command: str, **options: Any) -> ExecResult:
        if "%T@" in command:  # sandbox.listing.listing_command
            found = [f"{p}\t{len(b)}\t{self.mtime}\t644" for p, b in sorted(self.files.items()) if p[:5] == "/app/"]
            return ExecResult(exit_code=0, output="\n".join(found) + "\n", duration_sec=0.0)
        if "solve.sh" in command:
            self.mtime += 1
        return await super().exec(command, **options)


class CheckoutSandbox(FakeSandbox):
    @asynccontextmanager
    async def container(self, image: str, limits: Limits) -> AsyncIterator[FakeContainer]:
        self.containers += 1
        yield Checkout(self)


def test_files_the_solution_only_rewrote_are_neither_outputs_nor_modified(tmp_path: Path) -> None:
    instruction = "Sum /app/data/sales.csv by region into /app/out.txt.\n"
    task = Task.load(write_task(tmp_path, solve="echo done > /app/out.txt\n", instruction=instruction))
    found = asyncio.run(discover(CheckoutSandbox(), task))
    assert [(a.path, a.state) for a in found.artifacts] == [
        ("/app/out.txt", "new"),
        ("/app/data/sales.csv", "input, unchanged"),
    ]
