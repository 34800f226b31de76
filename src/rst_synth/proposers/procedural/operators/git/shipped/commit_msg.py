"""What `git-commit-msg-hook` ships: the hook (its message policy and command line), and the tests that run
the policy again on the repository's history, on fresh messages and on commits in a clone. The constants
are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import os
import pathlib
import random
import re
import shutil
import subprocess
import sys

from rst_synth.proposers.procedural.operators.kit.testkit import run_tool

REPO = "/app/repo"
MAIN = "main"
HOOK = "/app/repo/.git/hooks/commit-msg"
OUT = "/app/hooks/repo_message_audit.txt"
SEED = 1234
TYPES = ("build", "chore", "ci", "docs", "feat", "fix", "perf", "refactor", "revert", "style", "test")
MAX_SUBJECT = 72

SUBJECT = re.compile(r"(?P<type>[a-z]+)(\((?P<scope>[a-z0-9-]+)\))?(?P<bang>!)?: (?P<text>\S.*)")
EXEMPT = ("Merge ", 'Revert "', "fixup! ", "squash! ")


def problems(message: str) -> list[str]:
    lines = [line for line in message.split("\n") if not line.startswith("#")]
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines or not lines[0].strip():
        return ["empty-message"]
    subject, found = lines[0], []
    if subject.startswith(EXEMPT):
        return []
    match = SUBJECT.fullmatch(subject)
    if match is None:
        found.append("subject-format")
    elif match["type"] not in TYPES:
        found.append("unknown-type")
    elif match["text"].endswith("."):
        found.append("trailing-period")
    if len(subject) > MAX_SUBJECT:
        found.append("subject-too-long")
    if len(lines) > 1 and lines[1] != "":
        found.append("missing-blank-line")
    if match is not None and match["bang"] and not any(l.startswith("BREAKING CHANGE: ") for l in lines[2:]):  # noqa: E741
        found.append("breaking-without-note")
    return found


def main(argv: list[str]) -> int:
    with open(argv[1], encoding="utf-8") as f:
        found = problems(f.read())
    for problem in found:
        print("commit-msg: " + problem, file=sys.stderr)
    return 1 if found else 0


def fresh_messages(seed: int) -> list[str]:
    rng = random.Random(seed)
    text = ["add the export", "handle an empty input file", "drop v1 routes", "ünïcode names", "x" * 80]
    made = [
        "",
        "\n\n",
        "# only a comment\n",
        "Merge branch 'side'",
        'Revert "feat: x"\n\nThis reverts commit 1.',
        "fixup! feat: x",
        "squash! anything at all.",
        "feat: ok\n# comment\n",
        "feat: ok\nno blank line",
        "Feat: capital type",
        "feat(UI): upper scope",
        "feat (api): space",
        "feat:missing space",
        "feat: ",
        "wip: unknown type",
        "fix: ends with a period.",
        "feat(api)!: drop it",
        "feat(api)!: drop it\n\nBREAKING CHANGE: gone",
        "feat!: x\nBREAKING CHANGE: no blank line",
        "docs: " + "y" * (MAX_SUBJECT - 6),
        "docs: " + "y" * (MAX_SUBJECT - 5),
    ]
    for _ in range(12):
        kind = rng.choice(TYPES + ("wip", "Fix", "feature"))
        scope = rng.choice(["", "(api)", "(cli-2)", "(Api)", "()"])
        subject = kind + scope + rng.choice(["", "!"]) + rng.choice([": ", ":", " : "]) + rng.choice(text)
        subject += rng.choice(["", ".", "  "])
        body = rng.choice(["", "\n\nmore words", "\nno gap", "\n\nBREAKING CHANGE: removed", "\n\n# note\n"])
        made.append(subject + body + rng.choice(["", "\n", "\n\n"]))
    return made


def git(
    repo: str | pathlib.Path, *args: str | pathlib.Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, env=env)


def message_of(commit: str) -> str:
    raw = git(REPO, "cat-file", "commit", commit).stdout.decode("utf-8")
    return raw.split("\n\n", 1)[1] if "\n\n" in raw else ""


def test_audit_of_the_history() -> None:
    commits = git(REPO, "rev-list", "--reverse", "--first-parent", "--no-merges", "refs/heads/" + MAIN).stdout.split()
    want = "".join(c.decode()[:7] + " " + p + "\n" for c in commits for p in problems(message_of(c.decode())))
    assert want
    assert pathlib.Path(OUT).read_text(encoding="utf-8") == want


def test_hook_on_fresh_messages(tmp_path: pathlib.Path) -> None:
    assert os.access(HOOK, os.X_OK)
    for k, message in enumerate(fresh_messages(SEED)):
        path = tmp_path / f"msg{k}"
        path.write_text(message, encoding="utf-8")
        done = run_tool(HOOK, path)
        want = problems(message)
        assert done.returncode == (1 if want else 0), (message, done.stderr)
        assert done.stderr.decode("utf-8").splitlines() == ["commit-msg: " + p for p in want], message


def test_hook_guards_commits_in_a_clone(tmp_path: pathlib.Path) -> None:
    clone = tmp_path / "clone"
    assert git(tmp_path, "clone", "-q", "--no-hardlinks", REPO, clone).returncode == 0
    shutil.copy2(HOOK, clone / ".git" / "hooks" / "commit-msg")
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="T",
        GIT_AUTHOR_EMAIL="t@x.org",
        GIT_COMMITTER_NAME="T",
        GIT_COMMITTER_EMAIL="t@x.org",
    )
    messages = ("feat(cli): accept a file", "Update stuff", "fix: it works.", "perf!: x\n\nBREAKING CHANGE: api")
    for message in messages:
        before = git(clone, "rev-parse", "HEAD").stdout
        done = git(clone, "-c", "commit.gpgsign=false", "commit", "-q", "--allow-empty", "-m", message, env=env)
        after = git(clone, "rev-parse", "HEAD").stdout
        assert (done.returncode == 0) == (not problems(message)), message
        assert (after != before) == (not problems(message)), message
