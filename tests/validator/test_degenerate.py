"""The degenerate check: which outputs carry no information (a pure function over path and bytes),
and the check in the validator on the fake sandbox."""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
from pathlib import Path

import pytest

from rst_synth.sandbox import FileDigest, FileState
from rst_synth.task import Task
from rst_synth.validator import QUALITY_CHECKS, Check, Reason, ValidationReport, Validator, ValidatorConfig, Verdict
from rst_synth.validator.degenerate import (
    MAX_JUDGED_BYTES,
    MAX_JUDGED_OUTPUTS,
    degenerate_outputs,
    degenerate_reason,
    judge,
    judged_paths,
)
from tests.support import quality
from tests.support.fakes import FakeContainer, FakeSandbox

DEGENERATE = [
    # a header and no rows, blank lines ignored
    ("/app/report/x_above_mean.csv", b"name,value\n\n  \n", "a header and no rows"),
    ("/app/out.tsv", b"name\tcount\n", "a header and no rows"),
    # empty JSON, also as the only content after whitespace, and JSON whose records are all empty
    ("/app/out.json", b"[]", "an empty JSON array"),
    ("/app/out.json", b"\n  {}\n\n", "an empty JSON object"),
    ("/app/result", b" [ ]\n", "an empty JSON array"),
    ("/app/out.json", b'{"totals": {}, "rows": [], "note": null}', "a JSON object whose values are all empty"),
    ("/app/out.json", b'[{}, {"by_region": {}}]', "a JSON array whose values are all empty"),
    # rows whose every numeric column holds one value: the examples
    (
        "/app/servers.csv",
        b"server,rank_total\nalpha,1\nbeta,1\ngamma,1\n",
        "3 rows whose every numeric column holds one value (rank_total = 1)",
    ),
    (
        "/app/lines.csv",
        b"file,lines,bytes\na.log,1,12\nb.log,1,12\n",
        "2 rows whose every numeric column holds one value (lines = 1, bytes = 12)",
    ),
    (
        "/app/top5.json",
        b'[{"key": "a", "count": 1}, {"key": "b", "count": 1}, {"key": "c", "count": 1}]',
        "3 rows whose every numeric column holds one value (count = 1)",
    ),
    (
        "/app/top.json",
        b'{"top": [{"key": "a", "count": "1"}, {"key": "b", "count": "1.0"}]}',
        "top: 2 rows whose every numeric column holds one value (count = 1)",
    ),
    # statistics of a column whose every value is 12, flat and nested, as a table row and as JSON
    (
        "/app/stats.csv",
        b"min,max,mean,median\n12,12,12.0,12\n",
        "one row whose 4 numbers are all 12 (min, max, mean, median)",
    ),
    (
        "/app/stats.json",
        b'{"min": 12, "max": 12, "mean": 12.0, "median": 12}',
        "an object whose 4 numbers are all 12 (min, max, mean, median)",
    ),
    (
        "/app/stats.json",
        b'{"col": {"min": 12, "max": 12, "mean": 12, "median": 12}}',
        "an object whose 4 numbers are all 12 (col.min, col.max, col.mean, col.median)",
    ),
    # a table recognised by its content (a header of names), and JSON Lines
    ("/app/counts.txt", b"word|count\nfoo|2\nbar|2\n", "2 rows whose every numeric column holds one value (count = 2)"),
    ("/app/events.jsonl", b'{"n": 4}\n\n{"n": 4}\n', "2 rows whose every numeric column holds one value (n = 4)"),
]

INFORMATIVE = [
    ("/app/above.csv", b"name,value\nalice,3\nbob,5\n"),  # the numeric column varies
    ("/app/mixed.csv", b"region,units,price\nnorth,1,2.5\nsouth,1,4\n"),  # one numeric column of two varies
    ("/app/total.csv", b"total\n42\n"),  # a one-row, one-number result
    ("/app/total.csv", b"42\n"),
    ("/app/one.csv", b"region,total\nnorth,42\n"),
    ("/app/names.csv", b"name,team\nalice,red\nbob,red\n"),  # text only
    ("/app/out.json", b'{"totals": {}, "count": 3}'),  # any value of information
    ("/app/out.json", b'{"min": 12, "max": 13}'),
    ("/app/out.json", b'[{"key": "a", "count": 1}, {"key": "b", "count": 2}]'),
    ("/app/out.json", b'{"ok": true, "errors": []}'),
    ("/app/out.json", b'["alpha", "beta"]'),
    ("/app/hello.txt", b"Hello, world\nGoodbye, moon\n"),  # read as a table by its content: text only
]

NOT_JUDGED = [
    ("/app/done.flag", b""),  # an empty marker file
    ("/app/empty.csv", b""),
    ("/app/blank.csv", b"\n\n"),
    ("/app/notes.txt", b"summary: 7 errors found in 3 files\n"),  # text, not a table
    ("/app/notes.txt", b"name,count\n"),  # one line of text could be anything
    ("/app/build.log", b"a,1\nb,1\n"),  # a log is not read as a table
    ("/app/main.py", b"[]\n"),
    ("/app/broken.json", b'{"a": '),
    ("/app/blob.bin", bytes(range(256))),
]


@pytest.mark.parametrize(("path", "content", "why"), DEGENERATE)
def test_outputs_empty_of_information_are_named_with_why(path: str, content: bytes, why: str) -> None:
    assert degenerate_reason(path, content) == why


@pytest.mark.parametrize(("path", "content"), INFORMATIVE)
def test_outputs_with_any_information_pass(path: str, content: bytes) -> None:
    found = judge(path, content)
    assert found is not None and found.problem is None


@pytest.mark.parametrize(("path", "content"), NOT_JUDGED)
def test_markers_text_and_binary_files_are_not_judged(path: str, content: bytes) -> None:
    assert judge(path, content) is None


def database(tmp_path: Path, script: str) -> bytes:
    path = tmp_path / "made.db"
    path.unlink(missing_ok=True)
    db = sqlite3.connect(path)
    db.executescript(script)
    db.commit()
    db.close()
    return path.read_bytes()


def test_databases_whose_tables_hold_no_rows_or_one_value(tmp_path: Path) -> None:
    empty = database(tmp_path, "CREATE TABLE totals(region TEXT, total INTEGER); CREATE TABLE notes(x);")
    assert degenerate_reason("/app/sales.db", empty) == "an SQLite database whose 2 table(s) hold no rows"
    assert degenerate_reason("/app/none.db", database(tmp_path, "PRAGMA user_version = 1;")) == (
        "an SQLite database with no table"
    )
    ranks = database(
        tmp_path,
        "CREATE TABLE empty(x); CREATE TABLE ranks(server TEXT, rank INTEGER);"
        "INSERT INTO ranks VALUES ('a', 1), ('b', 1), ('c', '1');",  # the text '1' counts as the number
    )
    assert degenerate_reason("/app/ranks.db", ranks) == (
        "table ranks: 3 rows whose every numeric column holds one value (rank = 1)"
    )
    varied = database(
        tmp_path,
        "CREATE TABLE ranks(server TEXT, rank INTEGER); INSERT INTO ranks VALUES ('a', 1), ('b', 1);"
        "CREATE TABLE totals(region TEXT, total REAL); INSERT INTO totals VALUES ('n', 1.5), ('s', 2);",
    )
    found = judge("/app/varied.db", varied)
    assert found is not None and found.kind == "sqlite" and found.problem is None  # one table carries it
    assert judge("/app/torn.db", varied[:100]) is None  # a damaged file is not judged


def digest(content: bytes) -> FileDigest:
    return FileDigest(len(content), hashlib.sha256(content).hexdigest())


def check(files: dict[str, bytes], outputs: FileState | None = None) -> tuple[Verdict, Reason, str, str]:
    box = FakeContainer(FakeSandbox())
    box.files = dict(files)
    state = outputs if outputs is not None else {path: digest(body) for path, body in files.items()}
    result = asyncio.run(degenerate_outputs(box, state))
    assert result.check is Check.DEGENERATE
    return result.verdict, result.reason, result.detail, result.output_tail


def test_the_check_names_each_degenerate_output_and_quotes_its_head() -> None:
    verdict, reason, detail, tail = check(
        {
            "/app/a.csv": b"name,count\n",
            "/app/b.json": b"{}\n",
            "/app/c.csv": b"name,count\nx,1\ny,2\n",
            "/app/done": b"",
        }
    )
    assert (verdict, reason) == (Verdict.FAIL, Reason.DEGENERATE_OUTPUT)
    assert detail == "/app/a.csv: a header and no rows; /app/b.json: an empty JSON object"
    assert tail == "/app/a.csv:\nname,count\n\n/app/b.json:\n{}\n"


def test_the_check_passes_and_says_what_it_judged() -> None:
    verdict, reason, detail, _ = check({"/app/c.csv": b"name,count\nx,1\ny,2\n", "/app/done": b"", "/app/r.txt": b"ok"})
    assert (verdict, reason) == (Verdict.PASS, Reason.OK)
    assert detail == "1 of 3 new output(s) judged (tables, JSON, SQLite): none empty of information"


def test_the_check_reads_small_files_the_first_by_path_and_no_database_with_pending_writes() -> None:
    outputs = {f"/app/t{k:02d}.json": digest(b"[]") for k in range(MAX_JUDGED_OUTPUTS + 3)}
    outputs["/app/big.json"] = FileDigest(MAX_JUDGED_BYTES + 1, "x")
    outputs["/app/s.db"], outputs["/app/s.db-wal"] = FileDigest(4096, "y"), FileDigest(8, "z")
    chosen = judged_paths(outputs)
    assert "/app/big.json" not in chosen and "/app/s.db" not in chosen and len(chosen) == MAX_JUDGED_OUTPUTS + 4
    files = {path: b"name,count\nx,1\ny,2\n" for path in outputs}
    verdict, _, detail, _ = check(files, outputs)
    assert verdict is Verdict.PASS
    assert detail.endswith(
        f"judged (tables, JSON, SQLite), the first {MAX_JUDGED_OUTPUTS} by path read: none empty of information"
    )


def validate(task: Task, parent: Task | None, **config: object) -> ValidationReport:
    validator = Validator(FakeSandbox(), ValidatorConfig(**config))  # type: ignore[arg-type]
    return asyncio.run(validator.validate(task, parent))


def test_a_header_only_output_rejects_the_child_before_the_costly_checks(tmp_path: Path) -> None:
    child, parent = quality.degenerate(tmp_path)
    report = validate(child, parent)
    failure = report.first_failure
    assert failure is not None and (failure.check, failure.reason) == (Check.DEGENERATE, Reason.DEGENERATE_OUTPUT)
    assert failure.detail == f"{quality.TABLE}: a header and no rows"
    assert report.result_of("redundancy").passed and report.result_of("parent_outputs").passed
    for skipped in (Check.STEPS, Check.MUTATION):
        assert report.result_of(skipped.value).reason is Reason.EARLIER_CHECK_FAILED
    assert report.figures.kill_rate is None  # no mutation ran
    assert [c.check for c in report.checks][-len(QUALITY_CHECKS) :] == list(QUALITY_CHECKS)


def test_with_every_failure_the_costly_checks_still_run(tmp_path: Path) -> None:
    """For a repair that reads the whole report: the steps, mutation and tolerance checks still run."""
    child, parent = quality.degenerate(tmp_path)
    report = validate(child, parent, every_failure=True)
    assert report.first_failure is not None and report.first_failure.check is Check.DEGENERATE
    ran = [report.result_of(c.value) for c in (Check.STEPS, Check.MUTATION, Check.TOLERANCE)]
    assert all(r.reason is not Reason.EARLIER_CHECK_FAILED for r in ran), ran
    assert report.figures.kill_rate is not None


def test_without_the_quality_checks_a_degenerate_child_is_accepted(tmp_path: Path) -> None:
    child, parent = quality.degenerate(tmp_path)
    report = validate(child, parent, quality=False)
    assert report.accepted and report.result(Check.DEGENERATE) is None
