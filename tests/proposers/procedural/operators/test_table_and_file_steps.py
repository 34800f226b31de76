"""Data operators (CSV stats/filter, CSV <-> SQLite, archives, checksums, bundles): preconditions,
determinism, the steps run locally against their own checks, and a child per operator accepted."""

from __future__ import annotations

import io
import json
import random
import sqlite3
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind, classify
from rst_synth.proposers.base import ProposalError
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, StepContext
from rst_synth.proposers.procedural.operators.files import manifests_and_bundle  # noqa: F401
from rst_synth.proposers.procedural.operators.tables import column_stats_and_filter  # noqa: F401
from tests.support.operators import assert_accepted, extend_with, parent_task

SALES = (
    "region,product,units,price\nnorth,a,3,2.5\nsouth,b,1,4.0\nnorth,b,2,4.0\n"
    "east,a,5,2.5\nsouth,a,1,2.5\neast,b,2,4.0\n"
)
TOOLS = ["python3", "tar", "gzip", "sha256sum", "apt-get"]
DATA_OPS = [
    "csv-column-stats",
    "csv-filter-above-mean",
    "csv-to-sqlite",
    "sqlite-table-to-csv",
    "sqlite-add-summary-table",
    "archive-manifest",
    "file-sha256-manifest",
    "files-bundle-targz",
]


def make_db() -> bytes:
    """Items in categories that repeat (a category of one row each is no group)."""
    con = sqlite3.connect(":memory:")
    con.executescript("""
        CREATE TABLE items (name TEXT, category TEXT, qty INTEGER, price REAL);
        INSERT INTO items VALUES ('bolt','hw',10,0.5),('nut','hw',25,0.1),('glue','chem',3,4.25),
            ('bolt','hw',5,0.55),('tape',NULL,7,1.0),('saw','tools',1,NULL),
            ('epoxy','chem',2,6.5),('hammer','tools',4,12.0);
        CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
        INSERT INTO notes (body) VALUES ('x'),('y');
    """)
    data = con.serialize()
    con.close()
    return data


def make_targz() -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, body in (("docs/b.txt", b"bee\n"), ("a.csv", b"x,y\n1,2\n"), ("docs/", None)):
            info = tarfile.TarInfo(name.rstrip("/"))
            if body is None:
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            else:
                info.size = len(body)
                tar.addfile(info, io.BytesIO(body))
    return buf.getvalue()


def make_zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("dir/", b"")
        z.writestr("dir/z.txt", b"zed")
        z.writestr("a.txt", b"a" * 100)
    return buf.getvalue()


def artifact(path: str, content: bytes) -> Artifact:
    kind, details, sample = classify(path, content)
    return Artifact(path=path, kind=kind, size=len(content), details=details, sample=sample)


def discovery(*artifacts: Artifact, modules: tuple[str, ...] = ("sqlite3",), tools: list[str] = TOOLS) -> Discovery:
    return Discovery(workdir="/app", artifacts=list(artifacts), tools=tools, python_modules=list(modules))


def csv_art(text: str = SALES, path: str = "/app/out/sales.csv") -> Artifact:
    return artifact(path, text.encode())


# --- preconditions -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["csv-column-stats", "csv-filter-above-mean", "csv-to-sqlite"])
def test_csv_operators_preconditions(name: str) -> None:
    op = OPERATORS[name]
    assert op.can_use(csv_art(), discovery(csv_art()))
    no_numbers = csv_art("a,b\nx,y\nz,w\n")
    assert op.can_use(no_numbers, discovery()) is (name == "csv-to-sqlite")
    assert not op.can_use(csv_art("a,b\n1,nan\n2,3\n"), discovery())  # non-finite values
    assert not op.can_use(csv_art("a,a\n1,2\n3,4\n"), discovery())  # duplicate column names
    assert not op.can_use(artifact("/app/x.json", b"[1, 2]"), discovery())
    assert not op.can_use(csv_art(), Discovery(workdir="/app", tools=[]))  # no python3, no apt-get


def test_csv_to_sqlite_needs_python_sqlite_and_types_from_full_sample() -> None:
    op = OPERATORS["csv-to-sqlite"]
    assert not op.can_use(csv_art(), discovery(modules=()))
    ranked = csv_art("key,rank,rowid,sum\nann,1,4,9.5\nbob,1,2,3\n")  # a window report's own row ids
    assert op.can_use(csv_art(), discovery()) and not op.can_use(ranked, discovery())
    step = op.step(csv_art(), StepContext(discovery=discovery(), rng=random.Random(1)))
    assert step.produces[0].details["types"] == {
        "sales": {"region": "TEXT", "product": "TEXT", "units": "INTEGER", "price": "REAL"}
    }
    huge = "k,v\n" + "".join(f"row{i},{i}\n" for i in range(2000))  # sample cut short: no INTEGER guess
    step = op.step(csv_art(huge), StepContext(discovery=discovery(), rng=random.Random(1)))
    assert step.produces[0].details["types"]["sales"] == {"k": "TEXT", "v": "REAL"}
    for stem, table in (("sqlite_data", "t_sqlite_data"), ("2024 Sales", "t_2024_sales")):
        step = op.step(csv_art(path=f"/app/{stem}.csv"), StepContext(discovery=discovery(), rng=random.Random(1)))
        assert list(step.produces[0].details["tables"]) == [table]


def test_sqlite_operators_preconditions() -> None:
    db = artifact("/app/shop.db", make_db())
    assert db.kind is Kind.SQLITE
    for name in ("sqlite-table-to-csv", "sqlite-add-summary-table"):
        assert OPERATORS[name].can_use(db, discovery(db))
        assert not OPERATORS[name].can_use(db, discovery(db, modules=()))
        assert not OPERATORS[name].can_use(csv_art(), discovery())
    only_notes = Artifact(
        path="/app/n.db",
        kind=Kind.SQLITE,
        details={
            "tables": {"notes": ["id", "body"]},
            "types": {"notes": {"id": "INTEGER", "body": "TEXT"}},
            "rows": {"notes": 0},
            "views": [],
        },
    )
    assert not OPERATORS["sqlite-table-to-csv"].can_use(only_notes, discovery())  # empty table
    numbers_only = artifact("/app/n.db", _db("CREATE TABLE t (a INTEGER, b REAL); INSERT INTO t VALUES (1, 2.0);"))
    assert OPERATORS["sqlite-table-to-csv"].can_use(numbers_only, discovery())
    assert not OPERATORS["sqlite-add-summary-table"].can_use(numbers_only, discovery())  # no text column
    taken = artifact(
        "/app/n.db", _db("CREATE TABLE t (a TEXT, b REAL); CREATE TABLE t_summary (x);INSERT INTO t VALUES ('a', 1);")
    )
    assert not OPERATORS["sqlite-add-summary-table"].can_use(taken, discovery())  # summary name in use


def _db(script: str) -> bytes:
    con = sqlite3.connect(":memory:")
    con.executescript(script)
    data = con.serialize()
    con.close()
    return data


def test_archive_manifest_preconditions() -> None:
    op = OPERATORS["archive-manifest"]
    for path, content in (("/app/b.tar.gz", make_targz()), ("/app/b.zip", make_zip())):
        art = artifact(path, content)
        assert art.kind is Kind.ARCHIVE and op.can_use(art, discovery(art))
    gz = artifact("/app/x.gz", b"\x1f\x8b" + b"\0" * 20)
    assert gz.kind is Kind.ARCHIVE and not op.can_use(gz, discovery(gz))
    assert not op.can_use(csv_art(), discovery())


@pytest.mark.parametrize("name", ["file-sha256-manifest", "files-bundle-targz"])
def test_file_operators_preconditions(name: str) -> None:
    op = OPERATORS[name]
    art = csv_art()
    assert op.can_use(art, discovery(art))
    assert not op.can_use(artifact("/app/out/app.log", b"line\n"), discovery())  # logs keep growing
    db = artifact("/app/shop.db", make_db())
    assert not op.can_use(db, discovery(db))
    big = csv_art("a,b\n" + "x,1\n" * 300_000)
    assert not op.can_use(big, discovery(big))
    assert not op.can_use(art, discovery(art, tools=["python3"]))  # tool missing and cannot be installed


def test_siblings_are_the_stable_files_of_the_same_directory() -> None:
    arts = [
        csv_art(),
        artifact("/app/out/notes.txt", b"hi\n"),
        artifact("/app/out/run.log", b"x\n"),
        artifact("/app/out/shop.db", make_db()),
        artifact("/app/other/far.txt", b"no\n"),
    ]
    step = OPERATORS["file-sha256-manifest"].step(
        arts[0], StepContext(discovery=discovery(*arts), rng=random.Random(0))
    )
    assert "FILES = ['/app/out/notes.txt', '/app/out/sales.csv']\n" in step.tests


@pytest.mark.parametrize("name", DATA_OPS)
def test_no_output_inside_a_git_work_tree(name: str) -> None:
    """A new file in a repository the parent made would dirty its `git status`."""
    op = OPERATORS[name]
    content = {Kind.SQLITE: make_db(), Kind.ARCHIVE: make_targz()}.get(op.kinds[0], SALES.encode())
    ext = {Kind.SQLITE: "db", Kind.ARCHIVE: "tar.gz"}.get(op.kinds[0], "csv")
    inside, outside = artifact(f"/app/repo/data/x.{ext}", content), artifact(f"/app/repo2/x.{ext}", content)
    repo = Artifact(path="/app/repo", kind=Kind.GIT, details={"branch": "main", "commits": 1})
    assert op.can_use(outside, discovery(repo, outside)) and not op.can_use(inside, discovery(repo, inside))


@pytest.mark.parametrize("name", DATA_OPS)
def test_build_is_deterministic(name: str) -> None:
    art = {Kind.SQLITE: artifact("/app/shop.db", make_db()), Kind.ARCHIVE: artifact("/app/b.tar.gz", make_targz())}
    op = OPERATORS[name]
    target = art.get(op.kinds[0], csv_art())
    found = discovery(target, artifact("/app/out/notes.txt", b"hi\n"))
    steps = [op.step(target, StepContext(discovery=found, rng=random.Random(7), tag="r1s1")) for _ in range(2)]
    assert steps[0] == steps[1]
    assert "def test_r1s1_" in steps[0].tests
    assert steps[0].instruction[:1].isupper() and not steps[0].instruction.startswith("Next")


# --- each step run here, against its own checks, and produced details against classify() ----------


def run_step(tmp_path: Path, name: str, files: dict[str, bytes], consume: str, seed: int = 3) -> Artifact:
    arts = []
    for rel, content in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        arts.append(artifact(str(path), content))
    target = next(a for a in arts if a.path.endswith(consume))
    return run_built(tmp_path, name, target, discovery(*arts), seed)


def run_built(cwd: Path, name: str, target: Artifact, found: Discovery, seed: int = 3) -> Artifact:
    """Build the step, check its tests fail before and pass after its bash, and that the details it
    claims for its output agree with what classify() finds in the real file."""
    assert OPERATORS[name].can_use(target, found)
    step = OPERATORS[name].step(target, StepContext(discovery=found, rng=random.Random(seed)))
    before = Path(target.path).read_bytes()
    namespace: dict[str, object] = {}
    source = "\n".join(f"import {m}" for m in step.imports + ["pathlib"]) + "\n" + step.tests
    exec(compile(source, "step_tests", "exec"), namespace)
    checks = [f for n, f in namespace.items() if n.startswith("test_s1_")]
    assert checks
    for check in checks:
        with pytest.raises((OSError, AssertionError)):  # the output is missing: every check fails
            check()
    subprocess.run(["bash", "-euo", "pipefail", "-c", step.solution], cwd=cwd, check=True)
    for check in checks:
        check()
    assert Path(target.path).read_bytes() == before  # the consumed artifact is untouched
    (produced,) = step.produces
    content = Path(produced.path).read_bytes()
    kind, details, sample = classify(produced.path, content)
    assert kind is produced.kind
    for key, value in produced.details.items():
        known = value is not None and (not isinstance(value, dict) or None not in value.values())
        if key == "numeric":  # may be cautious (NULLs are unknown ahead), never wrong
            assert set(value) <= set(details[key])
        elif known and key in details and key not in ("categorical", "members"):
            assert details[key] == value, key
    return produced.model_copy(update={"size": len(content), "sample": sample})


@pytest.mark.parametrize("name", ["csv-column-stats", "csv-filter-above-mean", "csv-to-sqlite"])
def test_csv_steps_run_and_pass_their_checks(tmp_path, name: str) -> None:
    tsv = SALES.replace(",", "\t").encode()
    for text, rel in ((SALES.encode(), "sales.csv"), (tsv, "sales.tsv")):
        run_step(tmp_path / rel.replace(".", "_"), name, {rel: text}, rel)


# six regions on two rows each: a summary of six groups, enough rows for the statistics at the chain's end
CHAIN_SALES = "region,units\n" + "".join(
    f"{region},{units}\n"
    for region, units in zip(
        ["north", "south", "east", "west", "central", "coast"] * 2, [3, 1, 5, 2, 4, 6, 2, 1, 2, 7, 3, 1], strict=True
    )
)


def test_chain_csv_to_sqlite_to_summary_to_csv_to_stats(tmp_path) -> None:
    db = run_step(tmp_path, "csv-to-sqlite", {"out/sales.csv": CHAIN_SALES.encode()}, "sales.csv")
    assert db.details["rows"] == {"sales": 12}
    summary = run_built(tmp_path, "sqlite-add-summary-table", db, discovery(db))
    exported = run_built(tmp_path, "sqlite-table-to-csv", summary, discovery(summary), seed=1)
    assert exported.details["header"] == ["group_value", "n", "total"]
    assert exported.details["numeric"] == ["n"]
    content = Path(exported.path).read_bytes()  # what a later round's discovery sees: the row count too
    kind, details, sample = classify(exported.path, content)
    exported = Artifact(path=exported.path, kind=kind, size=len(content), details=details, sample=sample)
    stats = run_built(tmp_path, "csv-column-stats", exported, discovery(exported))
    con = sqlite3.connect(summary.path)
    counts, totals = zip(*con.execute("SELECT n, total FROM sales_summary"), strict=True)
    con.close()
    got = json.loads(Path(stats.path).read_text())
    assert got["total"]["max"] == max(totals)
    assert ("n" in got) == (len(set(counts)) > 1)  # a count that is the same for every group is no statistic
    run_built(tmp_path, "file-sha256-manifest", stats, discovery(exported, stats))


@pytest.mark.parametrize("name", ["sqlite-table-to-csv", "sqlite-add-summary-table"])
def test_sqlite_steps_run_and_pass_their_checks(tmp_path, name: str) -> None:
    for seed in range(4):  # different tables / columns
        run_step(tmp_path / str(seed), name, {"shop.db": make_db()}, "shop.db", seed=seed)


def test_archive_manifest_runs_on_tar_and_zip(tmp_path) -> None:
    for rel, content in (("b.tar.gz", make_targz()), ("b.zip", make_zip())):
        produced = run_step(tmp_path, "archive-manifest", {rel: content}, rel)
        assert Path(produced.path).read_text().splitlines()[1:] == (
            ["a.csv,8", "docs/b.txt,4"] if rel.endswith("gz") else ["a.txt,100", "dir/z.txt,3"]
        )


@pytest.mark.parametrize("name", ["file-sha256-manifest", "files-bundle-targz"])
def test_file_steps_run_and_pass_their_checks(tmp_path, name: str) -> None:
    files = {"out/sales.csv": SALES.encode(), "out/notes.txt": b"hi\n", "out/cfg.json": b'{"a": 1}'}
    run_step(tmp_path, name, files, "notes.txt")


# --- children accepted by the validator ------------------------------------------------------------

CSV_PARENT = f"mkdir -p /app/out\ncat > /app/out/sales.csv <<'CSV'\n{SALES}CSV\n"
DB_PARENT = """python3 - <<'PY'
import sqlite3
con = sqlite3.connect("/app/shop.db")
con.executescript('''
CREATE TABLE items (name TEXT, category TEXT, qty INTEGER, price REAL);
INSERT INTO items VALUES ('bolt','hw',10,0.5),('nut','hw',25,0.1),('glue','chem',3,4.25),
    ('bolt','hw',5,0.55),('tape',NULL,7,1.0),('saw','tools',1,NULL),
    ('epoxy','chem',2,6.5),('hammer','tools',4,12.0);
''')
con.commit()
PY
"""
ARCHIVE_PARENT = """mkdir -p /app/src/docs /app/dist
printf 'x,y\\n1,2\\n' > /app/src/a.csv
printf 'bee\\n' > /app/src/docs/b.txt
tar -C /app/src -czf /app/dist/src.tar.gz a.csv docs
"""
FILES_PARENT = """mkdir -p /app/out
printf 'region,units\\nnorth,3\\nsouth,4\\n' > /app/out/units.csv
printf 'hello\\n' > /app/out/notes.txt
"""
PARENTS = {
    "csv-column-stats": CSV_PARENT,
    "csv-filter-above-mean": CSV_PARENT,
    "csv-to-sqlite": CSV_PARENT,
    "sqlite-table-to-csv": DB_PARENT,
    "sqlite-add-summary-table": DB_PARENT,
    "archive-manifest": ARCHIVE_PARENT,
    "file-sha256-manifest": FILES_PARENT,
    "files-bundle-targz": FILES_PARENT,
}


@pytest.mark.docker
@pytest.mark.parametrize("operator", [op for op in DATA_OPS if op != "archive-manifest"])
def test_child_accepted_and_new_checks_fail_on_parent(tmp_path, operator: str) -> None:
    proposal, report = extend_with(operator, parent_task(tmp_path, PARENTS[operator]))
    assert_accepted(proposal, report, operator)


@pytest.mark.docker
def test_an_archive_is_no_input_of_a_step(tmp_path) -> None:
    """Listing an archive is bookkeeping on a bookkeeping output: the proposer never builds on one."""
    with pytest.raises(ProposalError, match="no_applicable_operator"):
        extend_with("archive-manifest", parent_task(tmp_path, ARCHIVE_PARENT))


def test_a_summary_grouped_by_a_code_column(tmp_path) -> None:
    """A foreign key groups (warehouse_id 1, 2, 3): the summary stores each as text and its tests agree."""
    con = sqlite3.connect(":memory:")
    con.executescript("""
        CREATE TABLE moves (warehouse_id INTEGER, qty INTEGER);
        INSERT INTO moves VALUES (1, 5), (2, 3), (1, 7), (3, 2), (2, 9), (1, 1);
    """)
    data = con.serialize()
    con.close()
    summary = run_step(tmp_path, "sqlite-add-summary-table", {"stock.db": data}, "stock.db")
    con = sqlite3.connect(summary.path)
    rows = sorted(con.execute("SELECT group_value, n, total FROM moves_summary"))
    con.close()
    assert rows == [("1", 3, 13.0), ("2", 2, 12.0), ("3", 1, 2.0)]
