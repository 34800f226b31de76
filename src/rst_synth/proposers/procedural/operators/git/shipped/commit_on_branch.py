"""What `git-commit-on-branch` ships: the tests that check the new branch adds only the listing of the
tracked files, with the stated identity and message. The constants are the step's parameters:
`shipping.render` sets them; the tests run with `gitkit.git` rendered before them."""

from __future__ import annotations

from rst_synth.proposers.procedural.operators.git.shipped.gitkit import git

ORIG = "main"
BRANCH = "manifest-r1s1"
FILE = "FILES.txt"
MESSAGE = "Add a listing of the tracked files"
WHO = "Release Bot"
EMAIL = "release-bot@example.com"
EPOCH = 1709285400


def test_branch_adds_only_the_listing() -> None:
    parents = git("rev-list", "--parents", "-n", "1", "refs/heads/" + BRANCH).split()
    assert parents[1:] == [git("rev-parse", "refs/heads/" + ORIG).strip()]
    changes = git("diff", "--no-renames", "--name-status", "refs/heads/" + ORIG, "refs/heads/" + BRANCH).splitlines()
    assert changes == ["A\t" + FILE]


def test_listing_content() -> None:
    tracked = sorted(p for p in git("ls-tree", "-r", "-z", "--name-only", "refs/heads/" + ORIG).split("\0") if p)
    content = git("show", "refs/heads/" + BRANCH + ":" + FILE)
    assert content.endswith("\n")
    assert content[:-1].split("\n") == tracked


def test_commit_identity_and_message() -> None:
    fmt = "--format=%an%x00%ae%x00%at%x00%cn%x00%ce%x00%ct"
    fields = git("log", "-1", fmt, "refs/heads/" + BRANCH).strip().split("\0")
    assert fields == [WHO, EMAIL, str(EPOCH), WHO, EMAIL, str(EPOCH)]
    assert git("log", "-1", "--format=%B", "refs/heads/" + BRANCH).strip() == MESSAGE


def test_original_branch_checked_out() -> None:
    assert git("symbolic-ref", "HEAD").strip() == "refs/heads/" + ORIG
