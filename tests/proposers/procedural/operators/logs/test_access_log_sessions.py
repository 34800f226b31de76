"""access-log-sessions: where it applies, the session rules on hand-checked lines, a deterministic step that
names its paths, its generated tests on its own tool (and on one that splits at exactly the gap), and a
child accepted against a parent whose task reads an access log."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.logs import access_log_sessions  # noqa: F401
from rst_synth.proposers.procedural.operators.logs.shipped import access_sessions
from tests.proposers.local_step import LocalStep
from tests.support.operators import assert_accepted, extend_with, parent_task

OP = OPERATORS["access-log-sessions"]
LOG = "".join(
    f'10.0.0.{1 + i % 3} - - [01/Apr/2026:10:{(i * 7) // 60:02d}:{(i * 7) % 60:02d} +0000] "GET /x HTTP/1.1" '
    f'{(200, 404, 500)[i % 3 == 2 and i % 2]} {100 + i} "-" "curl/8.5"\n'
    for i in range(60)
)


def artifact(text: str = LOG, path: str = "/app/logs/access.log") -> Artifact:
    kind, details, sample = classify(path, text.encode())
    return Artifact(path=path, kind=kind, size=len(text), details=details, sample=sample, input=True, new=False)


def discovery(*found: Artifact) -> Discovery:
    return Discovery(workdir="/app", artifacts=list(found) or [artifact()], tools=["python3"])


def build(seed: int = 3) -> Step:
    return OP.step(artifact(), StepContext(discovery=discovery(), rng=random.Random(seed), tag="r1s2"))


def sessions(text: str, gap: int) -> list[list[str]]:
    return access_sessions.sessions(text, gap)


def test_it_applies_to_access_logs() -> None:
    assert OP.can_use(artifact(), discovery())
    notes = artifact("hello\n" * 10, "/app/notes.txt")
    assert not OP.can_use(notes, discovery(notes))


def test_session_rules() -> None:
    text = (
        'a - - [01/Apr/2026:10:00:00 +0200] "GET / HTTP/1.1" 200 10\n'
        'a - - [01/Apr/2026:08:10:00 +0000] "GET / HTTP/1.1" 404 -\n'  # 10 minutes after, in UTC
        "junk\n"
        'b - - [01/Apr/2026:08:05:00 +0000] "-" 500 7 "-" "agent"\n'
        'a - - [01/Apr/2026:08:21:00 +0000] "GET / HTTP/1.1" 200 5\n'  # 11 minutes: a new session
    )
    assert sessions(text, 10) == [
        ["client", "start", "end", "requests", "bytes", "errors"],
        ["a", "2026-04-01T08:00:00Z", "2026-04-01T08:10:00Z", "2", "10", "1"],
        ["b", "2026-04-01T08:05:00Z", "2026-04-01T08:05:00Z", "1", "7", "1"],
        ["a", "2026-04-01T08:21:00Z", "2026-04-01T08:21:00Z", "1", "5", "0"],
    ]


def test_build_is_deterministic_and_names_every_path() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    paths = set(re.findall(r"'(/app/[^']+)'", step.tests)) | {a.path for a in step.produces}
    assert paths == {"/app/logs/access.log", "/app/bin/access_sessions", "/app/sessions/access_sessions.csv"}
    assert all(f"`{p}`" in step.instruction for p in paths)
    assert step.produces[0].kind is Kind.CSV


def test_generated_tests_pass_on_the_tool_and_fail_when_the_gap_itself_splits(tmp_path: Path) -> None:
    local = LocalStep(build(), tmp_path)
    local.put("/app/logs/access.log", LOG)
    local.solve()
    assert len(local.run_tests(tmp_path / "t")) == 3
    tool = local.path("/app/bin/access_sessions")
    source = tool.read_text()
    tool.write_text(source.replace("when - current[1] > gap:", "when - current[1] >= gap:"))
    assert tool.read_text() != source
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "wrong", only="fresh")


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    solve = "mkdir -p /app/report\nawk '{print $1}' /app/logs/access.log | sort | uniq -c > /app/report/clients.txt\n"
    dockerfile_log = "".join(f"RUN echo '{line}' >> /app/logs/access.log\n" for line in LOG.splitlines()[:40])
    from tests.support.tasks import BASE_DOCKERFILE

    parent = parent_task(tmp_path, solve, dockerfile=BASE_DOCKERFILE + "RUN mkdir -p /app/logs\n" + dockerfile_log)
    task_md = parent / "instruction.md"
    task_md.write_text("Count the requests per client of `/app/logs/access.log` into `/app/report/clients.txt`.\n")
    proposal, report = extend_with("access-log-sessions", parent)
    assert_accepted(proposal, report, "access-log-sessions")


def test_once_per_lineage() -> None:
    assert OP.once  # its tool is the same program whatever the input: a second step would be a copy
