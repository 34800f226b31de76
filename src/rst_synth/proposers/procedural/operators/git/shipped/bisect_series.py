"""What `git-bisect-revert` ships: the tests that compare the branch with the planted patch series
commit by commit, replay the planted check to find the first bad commit, and check the closing revert.
The constants are the step's parameters: `shipping.render` sets them. `git` is this module's own (not
`gitkit.git`) so that REPO is set with the rest of the parameters."""

from __future__ import annotations

import hashlib
import pathlib
import subprocess

from rst_synth.proposers.procedural.operators.kit.testkit import run_tool

REPO = "/app/repo"
MAIN = "main"
BRANCH = "series-r1s1"
CHECK = "/app/incoming/check_util.py"
OUT = "/app/bisect/util_first_bad.txt"
FOLDER = "toolkit"
WHO = "Release Bot"
EMAIL = "release-bot@example.com"
EPOCH = 1709285400
SERIES: list[tuple[str, str, str, int, dict[str, str]]] = [
    ("feat(util): add clamp()", "Mei Lin", "mei@dev.example.net", 1767230000, {"toolkit/util.py": "x = 1\n"}),
]
"""Per commit of the series: subject, author name, author email, author date (epoch), every file after it."""
FIXED = {"toolkit/util.py": "x = 1\n"}
"""The series' files after the revert of the bad commit."""


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", REPO, *args], check=True, capture_output=True, text=True).stdout


def blob_id(text: str) -> str:
    data = text.encode("utf-8")
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def tree(ref: str) -> dict[str, tuple[str, str]]:
    entries = {}
    for item in git("ls-tree", "-r", "-z", ref).split("\0"):
        if item:
            meta, path = item.split("\t", 1)
            mode, _, blob = meta.split()
            entries[path] = (mode, blob)
    return entries


def with_series(base: str, files: dict[str, str]) -> dict[str, tuple[str, str]]:
    want = dict(tree(base))
    want.update({path: ("100644", blob_id(text)) for path, text in files.items()})
    return want


def branch_commits() -> tuple[str, list[str]]:
    base = git("rev-parse", "refs/heads/" + MAIN).strip()
    return base, git("rev-list", "--reverse", "--first-parent", base + "..refs/heads/" + BRANCH).split()


def check_passes(commit: str, tmp_path: pathlib.Path) -> bool:
    where = tmp_path / commit
    for path in tree(commit):
        if path.startswith(FOLDER + "/"):
            (where / path).parent.mkdir(parents=True, exist_ok=True)
            (where / path).write_text(git("show", commit + ":" + path), encoding="utf-8")
    where.mkdir(parents=True, exist_ok=True)
    return run_tool("python3", CHECK, where).returncode == 0


def test_series_applied_on_the_branch() -> None:
    base, commits = branch_commits()
    assert len(commits) == len(SERIES) + 1
    assert git("rev-list", "--parents", "-n", "1", commits[0]).split()[1:] == [base]
    for commit, (subject, name, email, epoch, files) in zip(commits, SERIES):  # noqa: B905  (python3 before strict=)
        assert len(git("rev-list", "--parents", "-n", "1", commit).split()) == 2
        assert git("log", "-1", "--format=%s%x00%an%x00%ae%x00%at", commit).strip().split("\0") == [
            subject, name, email, str(epoch)]  # fmt: skip
        assert tree(commit) == with_series(base, files), subject
    assert git("symbolic-ref", "HEAD").strip() == "refs/heads/" + MAIN


def test_first_bad_commit_recorded(tmp_path: pathlib.Path) -> None:
    base, commits = branch_commits()
    verdicts = [check_passes(commit, tmp_path) for commit in commits[: len(SERIES)]]
    assert verdicts[0] and not verdicts[-1]
    bad = commits[verdicts.index(False)]
    subject = git("log", "-1", "--format=%s", bad).strip()
    assert pathlib.Path(OUT).read_text(encoding="utf-8") == bad + " " + subject + "\n"


def test_branch_ends_with_the_revert(tmp_path: pathlib.Path) -> None:
    base, commits = branch_commits()
    tip = commits[-1]
    bad = pathlib.Path(OUT).read_text(encoding="utf-8").split()[0]
    assert git("rev-list", "--parents", "-n", "1", tip).split()[1:] == [commits[-2]]
    subject, body = git("log", "-1", "--format=%s%x00%b", tip).split("\0")
    assert subject == 'Revert "' + git("log", "-1", "--format=%s", bad).strip() + '"'
    assert "This reverts commit " + bad + "." in body
    for who in ("%an%x00%ae%x00%at", "%cn%x00%ce%x00%ct"):
        assert git("log", "-1", "--format=" + who, tip).strip().split("\0") == [WHO, EMAIL, str(EPOCH)]
    assert tree(tip) == with_series(base, FIXED)
    assert check_passes(tip, tmp_path)
