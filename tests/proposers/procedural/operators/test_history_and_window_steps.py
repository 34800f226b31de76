"""Git history operators (revert, backport by a rule) and the SQL window/CTE report: preconditions,
determinism, and a child per operator accepted against its parent."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, StepContext
from rst_synth.proposers.procedural.operators.git import revert_and_backport
from rst_synth.proposers.procedural.operators.sqlite import window_report
from tests.support.operators import assert_accepted, discover_parent, extend_with, parent_task
from tests.support.tasks import BASE_DOCKERFILE

GIT_DOCKERFILE = BASE_DOCKERFILE + (
    "RUN apt-get update && apt-get install -y --no-install-recommends git && rm -rf /var/lib/apt/lists/*\n"
)
GIT_PARENT = """mkdir -p /app/repo && cd /app/repo
git init -q -b main
export GIT_AUTHOR_NAME=Ann GIT_AUTHOR_EMAIL=ann@example.com GIT_COMMITTER_NAME=Ann GIT_COMMITTER_EMAIL=ann@example.com
n=0
commit() { n=$((n + 1)); export GIT_AUTHOR_DATE="2025-01-0${n}T10:00:00+00:00"
  export GIT_COMMITTER_DATE="$GIT_AUTHOR_DATE"
  mkdir -p "$(dirname "$1")"; printf '%s\\n' "$2" >> "$1"; git add -A; git commit -q -m "$2"; }
commit README.md 'Initial import'
commit src/reader.py 'feat: read tables'
commit src/reader.py 'fix: strip the byte order mark'
commit docs/usage.md 'docs: describe usage'
commit src/cli.py 'fix(cli): exit non-zero on errors'
commit tests/test_cli.py 'test: cover the cli'
git rm -q docs/usage.md && git commit -q -m 'docs: drop the old usage page'
commit src/api.py 'feat(api): add read_table'
cd /app
"""
DB_PARENT = """python3 - <<'PY'
import sqlite3
con = sqlite3.connect("/app/shop.db")
con.execute("CREATE TABLE items (sku TEXT, category TEXT, price REAL, stock INTEGER)")
rows = [("a1", "tools", 9.5, 3), ("a2", "tools", 12.0, 0), ("a3", "tools", 12.0, 7), ("b1", "toys", 4.25, 9),
        ("b2", "toys", 30.0, 1), ("c1", None, 2.0, 5), ("c2", "food", 1.5, 40), ("c3", "food", None, 2)]
con.executemany("INSERT INTO items VALUES (?, ?, ?, ?)", rows)
con.commit()
PY
"""
HISTORY_OPERATORS = ("git-revert-on-branch", "git-backport-by-rule")


def log(*entries: tuple[str, list[str]], merge_at: int | None = None) -> list[dict[str, Any]]:
    return [
        {"subject": s, "parents": 2 if i == merge_at else 1, "files": files} for i, (s, files) in enumerate(entries)
    ]


LOG = log(
    ("Initial import", ["README.md"]),
    ("feat: read tables", ["src/reader.py"]),
    ("fix: strip the byte order mark", ["src/reader.py"]),
    ("docs: describe usage", ["docs/usage.md"]),
    ("fix(cli): exit non-zero on errors", ["src/cli.py"]),
    ("test: cover the cli", ["tests/test_cli.py"]),
)


def repo(entries: list[dict[str, Any]] = LOG, **details: object) -> Artifact:
    base = {"branch": "main", "commits": len(entries), "files": ["README.md"], "tags": [], "log": entries}
    return Artifact(path="/app/repo", kind=Kind.GIT, details={**base, **details})


def discovery(*artifacts: Artifact) -> Discovery:
    return Discovery(workdir="/app", artifacts=list(artifacts), tools=["python3", "git"], python_modules=["sqlite3"])


def test_revertible_commits_are_untouched_later() -> None:
    # src/reader.py changes again later, so only the last commit on it can be reverted cleanly
    assert revert_and_backport._revertible(repo()) == [
        "fix: strip the byte order mark",
        "docs: describe usage",
        "fix(cli): exit non-zero on errors",
        "test: cover the cli",
    ]
    twice = log(("a one", ["x"]), ("same subject", ["y"]), ("same subject", ["z"]))
    assert revert_and_backport._revertible(repo(twice)) == []  # a subject must name one commit
    assert revert_and_backport._revertible(repo(log(("root", ["x"]), ("merge it", ["y"]), merge_at=1))) == []


def test_backport_rules_pick_some_but_not_all() -> None:
    choices = revert_and_backport._backports(repo())
    assert ("Initial import", ("prefix", "fix")) in choices
    assert ("feat: read tables", ("folder", "src")) in choices
    for base, rule in choices:
        start = [e["subject"] for e in LOG].index(base)
        later = LOG[start + 1 :]
        assert 0 < sum(revert_and_backport._selects(rule, e) for e in later) < len(later)


@pytest.mark.parametrize("name", HISTORY_OPERATORS)
def test_history_preconditions(name: str) -> None:
    op = OPERATORS[name]
    assert op.can_use(repo(), discovery(repo()))
    assert not op.can_use(repo(branch="HEAD"), discovery(repo()))  # detached HEAD
    assert not op.can_use(repo(log=[]), discovery(repo()))  # no history known
    assert op.fit(repo(), discovery(repo())) > OPERATORS["csv-group-totals"].fit(repo(), discovery(repo()))


def sqlite_artifact(tmp_path: Path) -> Artifact:
    db = tmp_path / "shop.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE items (sku TEXT, category TEXT, price REAL, stock INTEGER)")
    # six rows, every category on two: enough rows for a ranking by price, groups that repeat
    rows = [("a", "x", 1.0, 2), ("b", "y", 2.5, 7), ("c", "x", 0.5, 11), ("d", "y", 9.0, 3), ("e", "z", 4.0, 5)]
    rows.append(("f", "z", 3.0, 8))
    con.executemany("INSERT INTO items VALUES (?, ?, ?, ?)", rows)
    con.commit()
    con.close()
    kind, details, _ = classify("/app/shop.db", db.read_bytes())
    return Artifact(path="/app/shop.db", kind=kind, details=details)


def test_window_report_choices_and_queries(tmp_path) -> None:
    art = sqlite_artifact(tmp_path)
    # grouped by what categorises (not the unique sku); a price is ranked, never totalled
    assert window_report._choices(art) == [("items", "category", "price"), ("items", "category", "stock")]
    assert window_report._choices(art, "top_per_group") == [
        ("items", "category", "price"),
        ("items", "category", "stock"),
    ]
    assert window_report._choices(art, "running_total") == [("items", "category", "stock")]
    con = sqlite3.connect(":memory:")  # every query template is valid SQL for SQLite
    con.execute('CREATE TABLE "t" ("g" TEXT, "v" REAL)')
    for template in window_report.QUERIES.values():
        con.execute(template.format(g="g", v="v", t="t", n=2)).fetchall()
    assert not OPERATORS["sqlite-window-report"].can_use(art, Discovery(workdir="/app", tools=["python3"]))


@pytest.mark.parametrize("name", [*HISTORY_OPERATORS, "sqlite-window-report"])
def test_build_is_deterministic(tmp_path, name: str) -> None:
    art = repo() if name in HISTORY_OPERATORS else sqlite_artifact(tmp_path)
    op = OPERATORS[name]
    steps = [op.step(art, StepContext(discovery=discovery(art), rng=random.Random(4), tag="r3s2")) for _ in range(2)]
    assert steps[0] == steps[1]
    compile(steps[0].tests, name, "exec")
    assert f"`{art.path}`" in steps[0].instruction and "test_r3s2_" in steps[0].tests


@pytest.mark.docker
def test_discovery_records_the_first_parent_log(tmp_path) -> None:
    found = discover_parent(parent_task(tmp_path, GIT_PARENT, dockerfile=GIT_DOCKERFILE))
    (git,) = found.of_kind(Kind.GIT)
    entries = git.details["log"]
    assert [e["subject"] for e in entries][:2] == ["Initial import", "feat: read tables"]
    assert entries[6] == {"subject": "docs: drop the old usage page", "parents": 1, "files": ["docs/usage.md"]}


@pytest.mark.docker
@pytest.mark.parametrize("operator", HISTORY_OPERATORS)
@pytest.mark.parametrize("seed", [0, 1])
def test_history_child_accepted(tmp_path, operator: str, seed: int) -> None:
    proposal, report = extend_with(operator, parent_task(tmp_path, GIT_PARENT, dockerfile=GIT_DOCKERFILE), seed=seed)
    assert_accepted(proposal, report, operator)


@pytest.mark.docker
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_window_report_child_accepted(tmp_path, seed: int) -> None:
    proposal, report = extend_with("sqlite-window-report", parent_task(tmp_path, DB_PARENT), seed=seed)
    assert_accepted(proposal, report, "sqlite-window-report")
