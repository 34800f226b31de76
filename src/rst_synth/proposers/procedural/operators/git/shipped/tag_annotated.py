"""What `git-tag-annotated` ships: the tests that check the annotated tag points at the stated commit
(the first-parent root, or the tip's first parent) with the stated message and tagger. The constants are
the step's parameters: `shipping.render` sets them; the tests run with `gitkit.git` rendered before them."""

from __future__ import annotations

from rst_synth.proposers.procedural.operators.git.shipped.gitkit import git

BRANCH = "main"
TAG = "baseline"
TARGET = "root"
MESSAGE = "Tag baseline"
WHO = "Release Bot"
EMAIL = "release-bot@example.com"
EPOCH = 1709285400


def expected_target() -> str:
    if TARGET == "root":
        return git("rev-list", "--first-parent", "refs/heads/" + BRANCH).split()[-1]
    return git("rev-parse", "refs/heads/" + BRANCH + "~1").strip()


def test_annotated_tag_on_target() -> None:
    assert git("cat-file", "-t", "refs/tags/" + TAG).strip() == "tag"
    assert git("cat-file", "-p", "refs/tags/" + TAG).splitlines()[0] == "object " + expected_target()


def test_tag_message_and_tagger() -> None:
    ref = "refs/tags/" + TAG
    assert git("for-each-ref", "--format=%(contents)", ref).strip() == MESSAGE
    tagger = git("for-each-ref", "--format=%(taggername)%00%(taggeremail)%00%(taggerdate:unix)", ref)
    assert tagger.strip().split("\0") == [WHO, "<" + EMAIL + ">", str(EPOCH)]
