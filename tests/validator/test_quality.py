"""The quality checks on the fake sandbox: each reason on a child written for it, a good child
accepted, and the pieces (new outputs, path literals, edits) on their own."""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
from pathlib import Path

import pytest

from rst_synth.sandbox import FileDigest
from rst_synth.task import Task
from rst_synth.validator import QUALITY_CHECKS, Check, Reason, ValidationReport, Validator, ValidatorConfig, Verdict
from rst_synth.validator.mutation import MutationOutcome, mutants_of, weak_tests
from rst_synth.validator.quality import States, is_output_path, lost_literals, new_outputs, path_literals, without_step
from tests.support import quality
from tests.support.fakes import FakeContainer, FakeSandbox


def validate(task: Task, parent: Task | None, **config: object) -> ValidationReport:
    validator = Validator(FakeSandbox(), ValidatorConfig(**config))  # type: ignore[arg-type]
    return asyncio.run(validator.validate(task, parent))


def digest(text: str) -> FileDigest:
    body = text.encode()
    return FileDigest(len(body), hashlib.sha256(body).hexdigest())


def test_a_good_child_passes_every_quality_check_with_all_edits_killed(tmp_path: Path) -> None:
    child, parent = quality.good(tmp_path)
    report = validate(child, parent)
    assert report.accepted, report.first_failure
    assert [report.result_of(c.value).verdict for c in QUALITY_CHECKS] == [Verdict.PASS] * len(QUALITY_CHECKS)
    assert report.figures.kill_rate == 1.0  # deletion, then 3 -> 4 (the line edit is not needed)
    assert report.result_of("mutation").detail == "2 of 2 edits of 1 new output(s) made the tests fail"


@pytest.mark.parametrize("reason", sorted(quality.CASES))
def test_each_reason_rejects_the_child_written_for_it(tmp_path: Path, reason: str) -> None:
    child, parent = quality.CASES[reason](tmp_path)
    report = validate(child, parent)
    failure = report.first_failure
    assert failure is not None and failure.reason is Reason(reason), report.checks
    assert failure.check in QUALITY_CHECKS and failure.verdict is Verdict.FAIL
    assert not report.accepted


def test_details_name_the_file_and_the_step(tmp_path: Path) -> None:
    details = {}
    for reason, make in quality.CASES.items():
        child, parent = make(tmp_path / reason)
        failure = validate(child, parent).first_failure
        assert failure is not None
        details[reason] = failure.detail
    assert details["redundant_output"].startswith("/app/report2.txt has the same content as /app/report.txt")
    assert details["changes_parent_output"] == "the new steps change /app/report.txt, which the parent's tests read"
    assert details["step_unnecessary"].startswith("the tests pass without step r1s2 (quality-test, solve.sh lines")
    assert details["weak_tests"].startswith(
        "the tests still pass with /app/summary.txt changed (line 1: 3 -> 4; line 1 dropped); 1 of 3 edits"
    )
    assert details["instruction_gap"].startswith("/app/summary.txt is read by tests/test_step_r1s1.py")
    assert details["degenerate_output"] == "/app/above_mean.csv: a header and no rows"


def test_two_new_outputs_with_one_content_are_redundant(tmp_path: Path) -> None:
    parent = quality.parent(tmp_path)
    text = "the same line twice, long enough"
    child = quality.child(
        parent, quality.writes("r1s1", "/app/a.txt", text), quality.writes("r1s2", "/app/b.txt", text)
    )
    failure = validate(child, parent).first_failure
    assert failure is not None and failure.reason is Reason.REDUNDANT_OUTPUT
    assert failure.detail.startswith("/app/b.txt has the same content as /app/a.txt, another new output")


def test_short_copies_are_not_redundant(tmp_path: Path) -> None:
    parent = quality.parent(tmp_path)
    child = quality.child(
        parent, quality.writes("r1s1", "/app/a.txt", "ok 1"), quality.writes("r1s2", "/app/b.txt", "ok 1")
    )
    report = validate(child, parent)
    assert report.result_of("redundancy").passed  # 5 bytes each: under 16


def test_without_a_parent_the_quality_checks_are_skipped(tmp_path: Path) -> None:
    child, _ = quality.good(tmp_path)
    report = validate(child, None)
    for check in QUALITY_CHECKS:
        assert (report.result_of(check.value).verdict, report.result_of(check.value).reason) == (
            Verdict.SKIP,
            Reason.NO_PARENT,
        )
    assert report.figures.kill_rate is None


def test_switched_off_they_are_not_part_of_the_report(tmp_path: Path) -> None:
    child, parent = quality.weak(tmp_path)
    report = validate(child, parent, quality=False)
    assert report.accepted
    assert not any(c.check in QUALITY_CHECKS for c in report.checks)


def test_an_earlier_failure_skips_them(tmp_path: Path) -> None:
    parent = quality.parent(tmp_path)
    lazy = quality.child(
        parent,
        quality.writes(
            "r1s1", "/app/summary.txt", quality.SUMMARY, test=quality.reads_test("/app/report.txt", quality.PARENT_TEXT)
        ),
    )
    report = validate(lazy, parent)
    assert report.first_failure is not None and report.first_failure.reason is Reason.PARENT_PASSES
    assert {report.result_of(c.value).reason for c in QUALITY_CHECKS} == {Reason.EARLIER_CHECK_FAILED}


def test_the_oracles_container_is_reused_and_nothing_stays_alive(tmp_path: Path) -> None:
    child, parent = quality.good(tmp_path)
    sandbox = FakeSandbox()
    on = asyncio.run(Validator(sandbox, ValidatorConfig()).validate(child, parent))
    with_quality = sandbox.containers
    off_box = FakeSandbox()
    asyncio.run(Validator(off_box, ValidatorConfig(quality=False)).validate(child, parent))
    assert on.accepted
    assert with_quality == off_box.containers  # one step: the mutations need no container of their own
    assert sandbox.live == 0


def task_files(box: FakeContainer) -> dict[str, bytes]:
    """What the task sees: /app and /tests (not the check's copies or the reward)."""
    return {path: body for path, body in box.files.items() if path.startswith(("/app/", "/tests/"))}


def run_edits(files: dict[str, bytes], tests: str) -> tuple[FakeContainer, dict[str, bytes], MutationOutcome]:
    box = FakeContainer(FakeSandbox())
    box.files = {**files, "/tests/test_a.py": tests.encode()}
    before = task_files(box)
    state = {path: digest(body.decode()) for path, body in files.items()}
    return box, before, asyncio.run(weak_tests(box, state, verify_timeout=10, max_outputs=5))


def test_weak_tests_skip_edits_once_one_kills_and_stop_at_the_first_unguarded_output() -> None:
    tests = quality.reads_test("/app/a", "count 5") + "\n\n" + quality.exists_test("/app/b").split("\n", 1)[1]
    box, before, found = run_edits({"/app/a": b"count 5\n", "/app/b": b"x 1\ny 2\n", "/app/c": b"z\n"}, tests)
    assert task_files(box) == before  # every output restored
    # a: deletion and 5 -> 6 kill (its line edit is skipped); b: deletion kills, both edits survive; c: not run
    assert found.kill_rate == round(3 / 5, 3)
    assert found.result.reason is Reason.WEAK_TESTS
    assert found.result.detail == (
        "the tests still pass with /app/b changed (line 2: 2 -> 3; line 2 dropped); "
        "3 of 5 edits of 2 new output(s) made the tests fail, then the check stopped"
    )


def test_a_surviving_deletion_fails_the_check_and_restores_the_file() -> None:
    box, before, found = run_edits(
        {"/app/flag": b"", "/app/summary.txt": b"total 12\n"}, quality.exists_test("/app/flag")
    )
    assert task_files(box) == before
    assert found.kill_rate == 0.5  # flag: its deletion kills (no content to edit); summary.txt: deletion survives
    assert found.result.detail.startswith("the tests still pass with /app/summary.txt deleted")


def test_no_new_output_passes_with_no_kill_rate() -> None:
    found = asyncio.run(weak_tests(FakeContainer(FakeSandbox()), {}, verify_timeout=10, max_outputs=5))
    assert found.result.passed and found.kill_rate is None


def test_edits_change_one_value_or_one_line() -> None:
    made = {m.edit: m for m in mutants_of("/app/r.csv", b"region,total\nnorth,120\nsouth,7\neast,30\n")}
    assert set(made) == {"delete", "value", "line"}
    assert made["value"].content == b"region,total\nnorth,120\nsouth,8\neast,30\n"  # the middle number
    assert made["value"].what == "line 3: 7 -> 8"
    assert made["line"].content == b"region,total\nnorth,120\neast,30\n"  # the middle line
    letters = {m.edit: m for m in mutants_of("/app/w.txt", b"alpha\nbeta\nzeta\n")}
    assert letters["value"].content == b"alpha\nceta\nzeta\n"
    assert mutants_of("/app/width", b"09\n")[1].content == b"10\n"
    assert [m.edit for m in mutants_of("/app/empty", b"")] == ["delete"]
    assert [m.edit for m in mutants_of("/app/huge", None)] == ["delete"]
    binary = mutants_of("/app/b.gz", b"\x1f\x8b\x00\x01\x02")
    assert [m.edit for m in binary] == ["delete", "byte"] and binary[1].content == b"\x1f\x8b\x01\x01\x02"


def _database(tmp_path: Path, script: str) -> bytes:
    db = sqlite3.connect(tmp_path / "made.db")
    db.executescript(script)
    db.commit()
    db.close()
    return (tmp_path / "made.db").read_bytes()


def test_a_database_gets_one_value_of_its_middle_row_changed(tmp_path: Path) -> None:
    content = _database(
        tmp_path,
        "CREATE TABLE empty(x); CREATE TABLE totals(region TEXT, total INTEGER);"
        "INSERT INTO totals VALUES ('north', 120), ('south', 7), ('east', 30);",
    )
    edit = mutants_of("/app/sales.db", content)[1]
    assert edit.edit == "value" and edit.what == "table totals row 2: total 7 -> 8"
    (tmp_path / "edited.db").write_bytes(edit.content or b"")
    rows = sqlite3.connect(tmp_path / "edited.db").execute("SELECT * FROM totals ORDER BY rowid").fetchall()
    assert rows == [("north", 120), ("south", 8), ("east", 30)]


def test_a_database_with_nothing_to_edit_gets_a_byte_changed(tmp_path: Path) -> None:
    content = _database(tmp_path, "CREATE TABLE empty(x);")
    assert [m.edit for m in mutants_of("/app/empty.db", content)] == ["delete", "byte"]


def test_new_outputs_leave_out_the_parents_own_and_noise() -> None:
    states = States(
        child_before={"/etc/hostname": digest("a")},
        child_after={
            "/etc/hostname": digest("a"),
            "/app/report.txt": digest("parent"),
            "/app/stamp.txt": digest("12:00"),
            "/app/new.txt": digest("new"),
            "/app/repo/.git/index": digest("x"),
            "/etc/group-": digest("g"),
        },
        parent_before={"/etc/hostname": digest("b")},
        parent_after={
            "/etc/hostname": digest("b"),
            "/app/report.txt": digest("parent"),
            "/app/stamp.txt": digest("11:00"),
        },
        replays=[{"/app/stamp.txt": digest("12:01"), "/app/new.txt": digest("new")}],
    )
    assert list(new_outputs(states)) == ["/app/new.txt"]  # stamp.txt: the parent's, varying from run to run
    states.replays = []
    assert list(new_outputs(states)) == ["/app/new.txt", "/app/stamp.txt"]
    assert not is_output_path("/root/.gitconfig") and not is_output_path("/etc/passwd-")
    assert not is_output_path("/etc/gshadow") and is_output_path("/etc/app/settings.ini")


def test_path_literals_are_absolute_paths_under_the_scan_roots() -> None:
    module = (
        'import subprocess\nfrom pathlib import Path\nOUT = Path("/app/out/")\n'
        'def test_x():\n    """Reads /app/doc.txt."""\n    assert Path(f"/app/reports/{1}.csv")\n'
        '    subprocess.run(["/usr/bin/env", "true"]); open("/tmp/x"); open("/etc/app.conf")\n'
    )
    assert path_literals({"t.py": module.encode()}) == {"/app/out", "/app/reports", "/etc/app.conf"}


def test_path_literals_skip_what_a_test_gives_its_processes_environment() -> None:
    module = (
        "import os, subprocess\n"
        'BASE = {"HOME": "/root", "PATH": "/usr/local/bin:/usr/bin:/bin", "APP_CONF": "/etc/app/env.conf"}\n'
        "def test_x(monkeypatch):\n"
        "    env = os.environ.copy()\n"
        '    env["HOME"] = "/root"\n'
        '    env["XDG_DATA_HOME"] = f"/home/u/{1}"\n'
        '    os.environ.get("PYTHONPATH", "/opt/lib/python")\n'
        '    os.getenv("TOOL_HOME", "/opt/tool")\n'
        '    monkeypatch.setenv("DATA_DIR", "/srv/data")\n'
        '    child_env = dict(os.environ, HOME="/home/tester")\n'
        '    subprocess.run(["/app/bin/tool", "/app/in.csv"], env={**os.environ, "OUT": "/app/tmp"}, cwd="/app")\n'
        '    subprocess.run(["true"], env=child_env | {"LOG": "/var/lib/log"})\n'
        '    open("/app/out/report.csv"); open("/root/notes.txt")\n'
        '    FILES = {"CSV": "/app/out/a.csv"}\n'
        '    ENV_FILE = "/app/settings.env"\n'
    )
    assert path_literals({"t.py": module.encode()}) == {
        "/app/bin/tool",
        "/app/in.csv",
        "/app/out/report.csv",
        "/root/notes.txt",
        "/app/out/a.csv",  # upper-case keys of a dict that is no environment
        "/app/settings.env",
    }
    not_files = b'X = ["/usr/local/bin:/usr/bin", "/app/tests/test_a.py::test_b", "/", "/root"]'
    assert path_literals({"t.py": not_files}) == set()  # search paths, node ids, scan roots alone
    cut = b'NOTES = [f"/app/data/notes-{n}.txt" for n in (1, 2)] + [f"/app/out/{n}.csv" for n in (1, 2)]'
    assert path_literals({"t.py": cut}) == {"/app/data", "/app/out"}  # never the name's start `/app/data/notes-`


def test_an_environment_in_the_new_tests_asks_nothing_of_the_instruction(tmp_path: Path) -> None:
    parent = quality.parent(tmp_path)
    child = quality.child(parent, quality.writes("r1s1", "/app/summary.txt", quality.SUMMARY))
    extra = (
        "import os, subprocess\n\n\ndef test_env():\n"
        '    env = {"HOME": "/root", "PATH": "/usr/local/bin:/usr/bin:/bin"}\n'
        '    subprocess.run(["true"], env=env, check=True)\n'
    )
    child.files["tests/test_env.py"] = extra.encode()
    assert validate(child, parent).result_of("instruction_paths").passed


def test_without_step_drops_exactly_its_lines(tmp_path: Path) -> None:
    child, _ = quality.unnecessary(tmp_path)
    lineage = child.config.metadata.lineage
    assert lineage is not None
    solve = without_step(child, lineage.added[1])["solve.sh"].decode()
    assert "/app/summary.txt" in solve and "/app/extra.txt" not in solve
    assert len(solve.splitlines()) == len(child.solve_sh.splitlines()) - 1


def test_instruction_may_name_the_folder_and_the_file_apart(tmp_path: Path) -> None:
    parent = quality.parent(tmp_path)
    step = quality.writes(
        "r1s1",
        "/app/out/summary.txt",
        quality.SUMMARY,
        instruction=f"In /app/out/, write summary.txt: `{quality.SUMMARY}`.",
    )
    assert validate(quality.child(parent, step), parent).result_of("instruction_paths").passed
    step = quality.writes(
        "r1s1", "/app/out/summary.txt", quality.SUMMARY, instruction="Write /app/out/summary.txt.bak."
    )
    assert validate(quality.child(parent, step), parent).result_of("instruction_paths").reason is Reason.INSTRUCTION_GAP


def test_checks_follow_the_parent_check_in_the_report(tmp_path: Path) -> None:
    child, parent = quality.good(tmp_path)
    order = [c.check for c in validate(child, parent).checks]
    assert order[order.index(Check.PARENT) + 1 :] == list(QUALITY_CHECKS)


def test_a_rewritten_instruction_keeps_what_the_parent_stated_and_the_tests_read(tmp_path: Path) -> None:
    parent = quality.parent(tmp_path)
    child = quality.child(parent, quality.writes("r1s1", "/app/summary.txt", quality.SUMMARY))
    assert lost_literals(child, parent) == []
    child.instruction = child.instruction.replace(f"`{quality.PARENT_TEXT}`", "the report line")
    assert lost_literals(child, parent) == [quality.PARENT_TEXT]  # the parent's test still compares it
    result = validate(child, parent).result_of("instruction_paths")
    assert result.reason is Reason.INSTRUCTION_GAP and quality.PARENT_TEXT in result.detail
    child.instruction += "\nNothing reads `unused literal`."
    assert lost_literals(child, parent) == [quality.PARENT_TEXT]  # a literal no test holds may go
