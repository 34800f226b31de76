"""The reference of git-log-authors-csv, called directly on the listing `git log` prints: its counts
pass its tests; a count off by one, rows out of order or another format's authors fail them."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.git.shipped import log_authors_csv as shipped
from tests.proposers.procedural.operators.git.shipped.repos import run


@pytest.fixture
def out(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, value in {"BRANCH": "main", "FORMAT": "%ae", "OUT": str(repo.parent / "authors.csv")}.items():
        monkeypatch.setattr(shipped, name, value)
    return repo.parent / "authors.csv"


def test_the_reference_passes_its_tests(repo: Path, out: Path) -> None:
    listing = repo.parent / "listing"
    listing.write_text(run("git", "-C", repo, "log", "--format=%ae", "refs/heads/main"))
    shipped.write_counts(str(listing))
    assert out.read_text().splitlines() == [
        "author,commits",
        "ada@example.com,3",
        "grace@example.com,3",
        "linus@example.com,2",
    ]
    shipped.test_author_counts_in_order()


@pytest.mark.parametrize(
    "rows",
    [
        [["ada@example.com", "3"], ["grace@example.com", "3"], ["linus@example.com", "1"]],
        [["grace@example.com", "3"], ["ada@example.com", "3"], ["linus@example.com", "2"]],
        [["Ada Byron", "3"], ["Grace Hopper", "3"], ["Linus Pauling", "2"]],
    ],
    ids=["off-by-one", "tie-order", "names-for-emails"],
)
def test_wrong_counts_fail(repo: Path, out: Path, rows: list[list[str]]) -> None:
    with out.open("w", newline="") as f:
        csv.writer(f).writerows([["author", "commits"], *rows])
    with pytest.raises(AssertionError):
        shipped.test_author_counts_in_order()
