"""What `git-changelog-tool` ships: the changelog tool (conventional-commit sections, merges left out, a
commit and its revert cancelled, and its command line), and the tests that write the changelog again on
the step's repository and on a fresh one with branches, a merge and reverts. The constants are the step's
parameters: `shipping.render` sets them."""

from __future__ import annotations

import os
import pathlib
import random
import re
import subprocess
import sys

from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, run_tool

TOOL = "/app/bin/repo_changelog"
REPO = "/app/repo"
MAIN = "main"
START = "init"
OUT = "/app/repo_changelog.md"
SEED = 1234

SECTIONS = (("breaking", "Breaking changes"), ("feat", "Features"), ("fix", "Fixes"), ("other", "Other"))
CONVENTIONAL = re.compile(r"^([A-Za-z]+)(?:\(([^()]+)\))?(!)?: (.+)$")
REVERTS = re.compile(r"This reverts commit ([0-9a-f]{40})")


def changelog(repo: str, start: str, end: str) -> str:
    out = subprocess.run(
        ["git", "-C", repo, "log", "--format=%H%x00%P%x00%ct%x00%B%x1e", start + ".." + end, "--"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    commits = []
    for record in out.split("\x1e"):
        record = record.lstrip("\n")
        if not record:
            continue
        sha, parents, stamp, message = record.split("\x00", 3)
        if len(parents.split()) == 1:
            commits.append((int(stamp), sha, message))
    shas = {sha for _, sha, _ in commits}
    cancelled: set[str] = set()
    for _, sha, message in commits:
        for target in REVERTS.findall(message):
            if target in shas:
                cancelled.update((sha, target))
    lines: dict[str, list[str]] = {key: [] for key, _ in SECTIONS}
    for _, sha, message in sorted(commits):
        if sha in cancelled:
            continue
        subject = message.split("\n", 1)[0].strip()
        found = CONVENTIONAL.match(subject)
        if found is None:
            key, text = "other", subject
        else:
            kind, scope, bang, text = found.groups()
            key = "breaking" if bang else kind.lower() if kind.lower() in ("feat", "fix") else "other"
            text = (scope + ": " + text) if scope else text
        lines[key].append("- " + text + " (" + sha[:7] + ")")
    blocks = [
        "## " + title + "\n" + "".join(line + "\n" for line in lines[key]) for key, title in SECTIONS if lines[key]
    ]
    return "\n".join(blocks)


def main() -> int:
    if len(sys.argv) != 4:
        print("usage: changelog REPO FROM TO", file=sys.stderr)
        return 2
    try:
        text = changelog(*sys.argv[1:])
    except subprocess.CalledProcessError as error:
        print("git failed: " + (error.stderr or "").strip(), file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0


def fresh_repo(path: pathlib.Path, seed: int) -> tuple[str, str]:
    rng = random.Random(seed)
    clock = [1700000000]

    def git(*args: str) -> str:
        clock[0] += rng.randint(60, 4000)
        env = dict(
            os.environ,
            GIT_AUTHOR_NAME="Dev",
            GIT_AUTHOR_EMAIL="dev@example.com",
            GIT_COMMITTER_NAME="Dev",
            GIT_COMMITTER_EMAIL="dev@example.com",
            GIT_AUTHOR_DATE=f"@{clock[0]} +0000",
            GIT_COMMITTER_DATE=f"@{clock[0]} +0000",
        )
        done = subprocess.run(
            ["git", "-C", str(path), "-c", "commit.gpgsign=false", *args],
            check=True,
            capture_output=True,
            text=True,
            env=env,
        )
        return done.stdout.strip()

    def commit(subject: str, name: str) -> str:
        (path / name).write_text(subject + str(rng.random()) + "\n", encoding="utf-8")
        git("add", "-A")
        git("commit", "-q", "-m", subject)
        return git("rev-parse", "HEAD")

    path.mkdir()
    git("init", "-q", "-b", "main")
    old = commit("fix: before the range", "old.txt")
    git("tag", "start")
    subjects = [
        "feat: add export",
        "feat(api)!: drop v1 routes",
        "fix(cli): quote paths",
        "docs: readme",
        "Plain subject without a type",
        "chore(deps): bump",
        "FIX: upper-case type",
        "feat: ünïcode name",
    ]
    rng.shuffle(subjects)
    made = [commit(s, f"f{i}.txt") for i, s in enumerate(subjects)]
    git("revert", "--no-edit", made[rng.randrange(len(made))])
    git("revert", "--no-edit", old)
    git("checkout", "-q", "-b", "side", "HEAD~2")
    commit("fix: side branch fix", "side.txt")
    git("checkout", "-q", "main")
    git("merge", "-q", "--no-ff", "-m", "Merge branch side", "side")
    commit("feat(ui): after the merge", "ui.txt")
    return "start", "main"


def start_commit() -> str:
    log = subprocess.run(
        ["git", "-C", REPO, "log", "--first-parent", "--format=%H%x00%s", "refs/heads/" + MAIN],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return next(line.split("\0")[0] for line in log.splitlines() if line.split("\0", 1)[1] == START)


def test_changelog_of_the_repository() -> None:
    want = changelog(REPO, start_commit(), "refs/heads/" + MAIN)
    assert want and pathlib.Path(OUT).read_text(encoding="utf-8") == want


def test_tool_on_a_fresh_repository(tmp_path: pathlib.Path) -> None:
    repo = tmp_path / "repo"
    start, end = fresh_repo(repo, SEED)
    done = run_tool(TOOL, repo, start, end)
    assert done.returncode == 0, done.stderr[-500:]
    got = done.stdout.decode("utf-8")
    assert got == changelog(str(repo), start, end)
    assert "Merge branch" not in got and "- before the range (" not in got and "side branch fix" in got
    assert '- Revert "fix: before the range" (' in got  # its target lies before the range
    assert run_tool(TOOL, repo, end, end).stdout == b""


def test_tool_rejects_an_unknown_ref(tmp_path: pathlib.Path) -> None:
    repo = tmp_path / "repo"
    fresh_repo(repo, 1)
    done = run_tool(TOOL, repo, "no-such-ref", "main")
    assert_usage_error(done)
