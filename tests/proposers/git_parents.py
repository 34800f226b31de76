"""Repositories for the git operators' tests: the same history as a parent task's solution (for the
real engine) and as a repository on this machine (for the generated tests run without Docker)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from tests.support.tasks import BASE_DOCKERFILE

COMMITS = (
    ("Ada Byron", "ada@example.com", "README.md", "Initial import"),
    ("Ada Byron", "ada@example.com", "src/reader.py", "feat: read tables"),
    ("Grace Hopper", "grace@example.com", "src/cli.py", "feat(cli): add the command"),
    ("Ada Byron", "ada@example.com", "docs/usage.md", "docs: usage"),
    ("Grace Hopper", "grace@example.com", "src/reader.py", "fix: strip the byte order mark"),
    ("Linus Pauling", "linus@example.com", "src/parser.py", "feat(parser): quoted fields"),
    ("Grace Hopper", "grace@example.com", "tests/test_reader.py", "test: reader"),
    ("Linus Pauling", "linus@example.com", "src/parser.py", "fix(parser): keep a trailing empty column"),
)
SCRIPT = """set -e
git init -q -b main "$1"
cd "$1"
day=0
commit() {
  day=$((day + 1))
  stamp="2025-02-$(printf %02d $day)T10:00:00+0000"
  mkdir -p "$(dirname "$3")"
  echo "$4" >> "$3"
  git add "$3"
  GIT_AUTHOR_NAME="$1" GIT_AUTHOR_EMAIL="$2" GIT_AUTHOR_DATE="$stamp" \\
  GIT_COMMITTER_NAME="$1" GIT_COMMITTER_EMAIL="$2" GIT_COMMITTER_DATE="$stamp" \\
    git -c commit.gpgsign=false commit -q -m "$4"
}
""" + "".join(f'commit "{n}" "{e}" "{f}" "{s}"\n' for n, e, f, s in COMMITS)
GIT_DOCKERFILE = BASE_DOCKERFILE + (
    "RUN apt-get update && apt-get install -y --no-install-recommends git && rm -rf /var/lib/apt/lists/*\n"
)


def parent_solve(repo: str = "/app/repo") -> str:
    """A parent solution that builds the repository at `repo`."""
    return f"bash -s {repo} <<'SH'\n{SCRIPT}SH\n"


def make_repo(path: Path) -> None:
    subprocess.run(["bash", "-c", SCRIPT, "make", str(path)], check=True, capture_output=True, env=dict(os.environ))


def repo_artifact(path: str = "/app/repo") -> Artifact:
    """The repository as discovery describes it."""
    log = [{"subject": s, "parents": int(k > 0), "files": [f]} for k, (_, _, f, s) in enumerate(COMMITS)]
    files = sorted({f for _, _, f, _ in COMMITS})
    details = {"branch": "main", "commits": len(COMMITS), "files": files, "tags": [], "log": log}
    return Artifact(path=path, kind=Kind.GIT, new=True, details=details)


def git_discovery(*found: Artifact) -> Discovery:
    return Discovery(workdir="/app", artifacts=list(found) or [repo_artifact()], tools=["git", "python3"])
