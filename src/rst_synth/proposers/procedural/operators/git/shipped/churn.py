"""What `git-churn-csv` ships: the churn tool (lines added and deleted per author and ISO week, and its
command line), and the tests that count again on the step's repository and on fresh repositories they
build (merges, renames, binary, vendored and lock files). The constants are the step's parameters:
`shipping.render` sets them."""

from __future__ import annotations

import csv
import datetime
import os
import pathlib
import random
import re
import subprocess
import sys

from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, csv_text_rows, run_tool

TOOL = "/app/bin/repo_churn"
REPO = "/app/repo"
MAIN = "main"
OUT = "/app/repo_churn.csv"
SEED = 1234

NOT_COUNTED = re.compile(r"(^|/)vendor/|\.lock$")


def git_out(repo: str | pathlib.Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True).stdout


def churn(repo: str | pathlib.Path, ref: str) -> list[list[str]]:
    rows: dict[tuple[str, str], list[int]] = {}
    listing = git_out(repo, "log", "--no-merges", "--format=%H%x00%ae%x00%at", ref, "--").decode("utf-8")
    for line in listing.splitlines():
        sha, email, stamp = line.split("\0")
        day = datetime.datetime.fromtimestamp(int(stamp), datetime.timezone.utc).date()  # noqa: UP017  # older pythons
        year, week, _ = day.isocalendar()
        key = (email.lower(), f"{year}-W{week:02d}")
        row = rows.setdefault(key, [0, 0, 0])
        row[0] += 1
        stats = git_out(repo, "diff-tree", "--root", "--no-commit-id", "--no-renames", "-r", "-z", "--numstat", sha)
        for entry in stats.decode("utf-8", "surrogateescape").split("\0"):
            if not entry:
                continue
            added, deleted, path = entry.split("\t", 2)
            if added == "-" or NOT_COUNTED.search(path):
                continue
            row[1] += int(added)
            row[2] += int(deleted)
    ordered = sorted(rows.items(), key=lambda item: (item[0][1], item[0][0]))
    return [["author", "week", "commits", "additions", "deletions"]] + [
        [author, week, str(c), str(a), str(d)] for (author, week), (c, a, d) in ordered
    ]


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: " + argv[0] + " REPO REF", file=sys.stderr)
        return 2
    try:
        table = churn(argv[1], argv[2])
    except subprocess.CalledProcessError as error:
        print("git failed: " + " ".join((error.stderr or b"").decode("utf-8", "replace").split()), file=sys.stderr)
        return 2
    csv.writer(sys.stdout, lineterminator="\n").writerows(table)
    return 0


def fresh_repo(path: pathlib.Path, seed: int) -> str:
    rng = random.Random(seed)
    people = [
        ("Ana", "Ana.Lopez@Example.com"),
        ("Ana L", "ana.lopez@example.com"),
        ("Bo", "bo@x.org"),
        ("Cy", "cy@x.org"),
    ]
    clock = [datetime.datetime(2026, 1, 4, 20, 0, tzinfo=datetime.timezone.utc).timestamp()]  # noqa: UP017

    def git(*args: str, who: tuple[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
        who = who or rng.choice(people)
        clock[0] += rng.choice([1800, 5400, 86400, 3 * 86400])
        zone = rng.choice(["+0000", "-0500", "+0900", "+0530"])
        stamp = f"@{int(clock[0])} {zone}"
        env = dict(
            os.environ,
            GIT_AUTHOR_NAME=who[0],
            GIT_AUTHOR_EMAIL=who[1],
            GIT_AUTHOR_DATE=stamp,
            GIT_COMMITTER_NAME="CI",
            GIT_COMMITTER_EMAIL="ci@x.org",
            GIT_COMMITTER_DATE=stamp,
        )
        return subprocess.run(
            ["git", "-C", str(path), "-c", "commit.gpgsign=false", *args], check=True, capture_output=True, env=env
        )

    def write(name: str, lines: list[str] | None = None, data: bytes | None = None) -> None:
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data if data is not None else "".join(f"{l}\n" for l in lines).encode("utf-8"))  # type: ignore[union-attr]  # noqa: E741

    path.mkdir()
    git("init", "-q", "-b", "main")
    write("src/app.py", [f"line {k}" for k in range(rng.randint(3, 9))])
    write("vendor/lib.js", ["x"] * 40)
    write("poetry.lock", ["a = 1"] * 12)
    write("logo.png", data=bytes(range(256)))
    write("docs/ünï code.md", ["# title"])
    git("add", "-A")
    git("commit", "-q", "-m", "root")
    for k in range(rng.randint(6, 10)):
        target = rng.choice(
            [
                "src/app.py",
                "src/util.py",
                "vendor/lib.js",
                "poetry.lock",
                "logo.png",
                "docs/ünï code.md",
                "src/sub/vendor/x.txt",
                "README",
            ]
        )
        if target == "logo.png":
            write(target, data=bytes(rng.randrange(256) for _ in range(300)))
        else:
            old = (path / target).read_text(encoding="utf-8").splitlines() if (path / target).exists() else []
            keep = [l for l in old if rng.random() < 0.7]  # noqa: E741
            write(target, keep + [f"new {k} {n}" for n in range(rng.randint(0, 6))])
        if k == 3:
            git("mv", "src/app.py", "src/main.py")
        git("add", "-A")
        git("commit", "-q", "--allow-empty", "-m", f"change {k}")
    git("checkout", "-q", "-b", "side", "HEAD~2")
    write("side.txt", ["s"] * rng.randint(1, 5))
    git("add", "-A")
    git("commit", "-q", "-m", "side work")
    git("checkout", "-q", "main")
    git("merge", "-q", "--no-ff", "-m", "Merge side", "side")
    return "main"


def test_churn_of_the_repository() -> None:
    want = churn(REPO, "refs/heads/" + MAIN)
    assert len(want) > 1
    assert csv_text_rows(pathlib.Path(OUT).read_text(encoding="utf-8")) == want


def test_tool_on_fresh_repositories(tmp_path: pathlib.Path) -> None:
    for k in range(2):
        repo = tmp_path / f"repo{k}"
        ref = fresh_repo(repo, SEED + k)
        done = run_tool(TOOL, repo, ref)
        assert done.returncode == 0, done.stderr[-500:]
        got = csv_text_rows(done.stdout.decode("utf-8"))
        assert got == churn(repo, ref)
        commits = int(
            subprocess.run(
                ["git", "-C", str(repo), "rev-list", "--count", "--no-merges", ref], capture_output=True, check=True
            ).stdout
        )
        assert sum(int(row[2]) for row in got[1:]) == commits


def test_tool_rejects_an_unknown_ref(tmp_path: pathlib.Path) -> None:
    repo = tmp_path / "repo"
    fresh_repo(repo, 1)
    done = run_tool(TOOL, repo, "no-such-ref")
    assert_usage_error(done)
