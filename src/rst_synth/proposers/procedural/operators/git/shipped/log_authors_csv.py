"""What `git-log-authors-csv` ships: the script that counts the commits per author in a `git log` listing
(one author per line), and the tests that count them again from the repository. The constants are the
step's parameters: `shipping.render` sets them; the tests run with `gitkit.git` rendered before them."""

from __future__ import annotations

import collections
import csv

from rst_synth.proposers.procedural.operators.git.shipped.gitkit import git

BRANCH = "main"
FORMAT = "%ae"
OUT = "/app/repo_authors.csv"


def write_counts(listing: str) -> None:
    counts = collections.Counter(line.rstrip("\n") for line in open(listing, encoding="utf-8"))
    with open(OUT, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["author", "commits"])
        for author, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            writer.writerow([author, n])


def expected() -> list[tuple[str, int]]:
    counts = collections.Counter(git("log", "--format=" + FORMAT, "refs/heads/" + BRANCH).splitlines())
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def test_author_counts_in_order() -> None:
    with open(OUT, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["author", "commits"]
    assert [(r[0], int(r[1])) for r in rows[1:]] == expected()
