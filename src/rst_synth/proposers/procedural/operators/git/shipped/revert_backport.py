"""What `git-revert-on-branch` and `git-backport-by-rule` ship: the tests that check the new branch
against the trees git itself records (a revert restores the files the commit changed; a backport takes
each picked commit's version of the files it changed). The constants are the steps' parameters:
`shipping.render` sets them. `git` is this module's own (not `gitkit.git`) so that REPO is set with
the rest of the parameters."""

from __future__ import annotations

import subprocess

REPO = "/app/repo"
MAIN = "main"
BRANCH = "revert-r1s1"
SUBJECT = "fix: strip the byte order mark"
BASE = "feat: read tables"
WHO = "Release Bot"
EMAIL = "release-bot@example.com"
EPOCH = 1709285400
RULE = "prefix"
"""How the backport picks its commits: "prefix" (the subject starts with ARG) or "folder" (the commit
changes a file under the top-level folder ARG)."""
ARG = "fix"


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", REPO, *args], check=True, capture_output=True, text=True).stdout


def by_subject(subject: str) -> str:
    for line in git("log", "--first-parent", "--format=%H%x00%s", "refs/heads/" + MAIN).splitlines():
        commit, text = line.split("\0", 1)
        if text == subject:
            return commit
    raise AssertionError("no commit with subject " + subject)


def tree(ref: str) -> dict[str, tuple[str, str]]:
    entries = {}
    for item in git("ls-tree", "-r", "-z", ref).split("\0"):
        if item:
            meta, path = item.split("\t", 1)
            mode, _, blob = meta.split()
            entries[path] = (mode, blob)
    return entries


def changed(commit: str) -> list[str]:
    out = git("diff-tree", "--no-commit-id", "--no-renames", "-r", "-z", "--name-only", commit + "^", commit)
    return [path for path in out.split("\0") if path]


def stamp(ref: str, who: str) -> list[str]:
    fmt = "%an%x00%ae%x00%at" if who == "author" else "%cn%x00%ce%x00%ct"
    return git("log", "-1", "--format=" + fmt, ref).strip().split("\0")


def test_branch_reverts_exactly_that_commit() -> None:
    target, tip = by_subject(SUBJECT), git("rev-parse", "refs/heads/" + MAIN).strip()
    assert git("rev-list", "--parents", "-n", "1", "refs/heads/" + BRANCH).split()[1:] == [tip]
    want, before = tree(tip), tree(target + "^")
    for path in changed(target):
        if path in before:
            want[path] = before[path]
        else:
            want.pop(path, None)
    assert tree("refs/heads/" + BRANCH) == want


def test_revert_commit_metadata() -> None:
    ref = "refs/heads/" + BRANCH
    assert git("log", "-1", "--format=%s", ref).strip() == 'Revert "' + SUBJECT + '"'
    assert stamp(ref, "author") == [WHO, EMAIL, str(EPOCH)] == stamp(ref, "committer")
    assert git("symbolic-ref", "HEAD").strip() == "refs/heads/" + MAIN


def selected(commit: str) -> bool:
    if RULE == "prefix":
        return git("log", "-1", "--format=%s", commit).startswith(ARG)
    return any(p.startswith(ARG + "/") for p in changed(commit))


def picked() -> tuple[str, list[str]]:
    base = by_subject(BASE)
    span = git("rev-list", "--reverse", "--first-parent", "--no-merges", base + "..refs/heads/" + MAIN).split()
    return base, [commit for commit in span if selected(commit)]


def test_backport_commits_in_order() -> None:
    base, picks = picked()
    commits = git("rev-list", "--reverse", "--first-parent", base + "..refs/heads/" + BRANCH).split()
    assert picks and len(commits) == len(picks)
    assert git("rev-list", "--parents", "-n", "1", commits[0]).split()[1:] == [base]
    for new, old in zip(commits, picks):  # noqa: B905  (the tests run on python3 before strict=)
        assert len(git("rev-list", "--parents", "-n", "1", new).split()) == 2
        assert git("log", "-1", "--format=%B", new) == git("log", "-1", "--format=%B", old)
        assert stamp(new, "author") == stamp(old, "author")
        assert stamp(new, "committer") == [WHO, EMAIL, str(EPOCH)]


def test_picked_version_of_every_file_wins() -> None:
    base, picks = picked()
    commits = git("rev-list", "--reverse", "--first-parent", base + "..refs/heads/" + BRANCH).split()
    want = tree(base)
    for new, old in zip(commits, picks):  # noqa: B905  (the tests run on python3 before strict=)
        after = tree(old)
        for path in changed(old):
            if path in after:
                want[path] = after[path]
            else:
                want.pop(path, None)
        assert tree(new) == want, new
    assert git("symbolic-ref", "HEAD").strip() == "refs/heads/" + MAIN
