"""Git and source-file operators: preconditions, determinism, and a child per operator accepted against its parent."""

from __future__ import annotations

import random

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, StepContext
from rst_synth.proposers.procedural.operators.git import branch_authors_tag
from rst_synth.proposers.procedural.operators.source import source_and_script_inventory
from tests.support.operators import assert_accepted, extend_with, parent_task
from tests.support.tasks import BASE_DOCKERFILE

GIT_DOCKERFILE = BASE_DOCKERFILE + (
    "RUN apt-get update && apt-get install -y --no-install-recommends git && rm -rf /var/lib/apt/lists/*\n"
)
GIT_PARENT = """mkdir -p /app/repo/src && cd /app/repo
git init -q -b main
echo alpha > README.md && printf 'x = 1\\n' > src/mod.py
git add -A && git -c user.name=Ann -c user.email=ann@example.com commit -q -m 'first'
echo beta >> README.md && echo data > 'notes file.txt'
git add -A && git -c user.name=Bob -c user.email=bob@example.com commit -q -m 'second'
echo gamma >> README.md
git add -A && git -c user.name=Ann -c user.email=ann@example.com commit -q -m 'third'
git -c user.name=Ann -c user.email=ann@example.com tag -a v1 -m 'one'
cd /app
"""
# four top-level definitions or more in each source: an inventory of fewer lists what a glance shows
PYTHON = '''"""A small tool."""
import sys


@staticmethod
def helper(x):
    """Double."""
    return 2 * x


class Runner:
    def run(self):
        return helper(1)


async def main():
    pass


def parse(argv):
    return list(argv)

if sys.argv:
    def hidden():
        pass
'''
C_CODE = """#include <stdio.h>

static int add(int a, int b)
{
    return a + b;
}

int proto(int x);

char *
legacy(void)
{
    return 0;
}

int main(int argc, char **argv) {
    printf("%d\\n", add(1, 2));
    return 0;
}

static int sub(int a, int b)
{
    return a - b;
}

int mul(int a, int b) {
    return a * b;
}
"""
SHELL = '#!/bin/bash\nset -eu\n# say hello\necho hi\n\nfor f in a b; do\n  echo "$f"\ndone\n'
SOURCE_PARENT = (
    f"mkdir -p /app/src\ncat > /app/src/tool.py <<'EOF'\n{PYTHON}EOF\n"
    f"cat > /app/src/main.c <<'EOF'\n{C_CODE}EOF\n"
    f"cat > /app/run.sh <<'EOF'\n{SHELL}EOF\n"
)


def git_artifact(**details: object) -> Artifact:
    base = {"branch": "main", "commits": 3, "files": ["README.md", "notes file.txt", "src/mod.py"], "tags": ["v1"]}
    return Artifact(path="/app/repo", kind=Kind.GIT, details={**base, **details})


def file_artifact(path: str, text: str) -> Artifact:
    kind, details, sample = classify(path, text.encode())
    return Artifact(path=path, kind=kind, details=details, sample=sample)


def discovery(*artifacts: Artifact, tools: tuple[str, ...] = ("python3", "git")) -> Discovery:
    return Discovery(workdir="/app", artifacts=list(artifacts), tools=list(tools))


def test_git_preconditions() -> None:
    ok = git_artifact()
    for name in ("git-commit-on-branch", "git-log-authors-csv", "git-tag-annotated"):
        op = OPERATORS[name]
        assert op.can_use(ok, discovery(ok))
        assert not op.can_use(git_artifact(branch="HEAD"), discovery(ok))  # detached HEAD
        assert not op.can_use(ok, discovery(ok, tools=("python3",)))  # no git, no apt-get
        assert not op.can_use(file_artifact("/app/a.py", PYTHON), discovery(ok))
    assert OPERATORS["git-commit-on-branch"].can_use(ok, discovery(ok, tools=("python3", "apt-get")))
    assert not OPERATORS["git-tag-annotated"].can_use(git_artifact(commits=1), discovery(ok))
    taken = [n for names in branch_authors_tag.GitTagAnnotated.NAMES.values() for n in names]
    assert not OPERATORS["git-tag-annotated"].can_use(git_artifact(tags=taken), discovery(ok))
    assert not OPERATORS["git-commit-on-branch"].can_use(git_artifact(files=[]), discovery(ok))
    assert not OPERATORS["git-commit-on-branch"].can_use(git_artifact(files=['we"ird']), discovery(ok))
    listings = list(branch_authors_tag.GitCommitOnBranch.FILES)
    assert not OPERATORS["git-commit-on-branch"].can_use(git_artifact(files=listings), discovery(ok))


def test_tag_never_reuses_an_existing_name() -> None:
    op = OPERATORS["git-tag-annotated"]
    names = branch_authors_tag.GitTagAnnotated.NAMES
    art = git_artifact(tags=[*names["root"], *names["parent"][:-1]])
    for seed in range(10):
        step = op.step(art, StepContext(discovery=discovery(art), rng=random.Random(seed)))
        assert f"tag -a {names['parent'][-1]} " in step.solution
        assert step.produces[0].details["tags"] == sorted([*art.details["tags"], names["parent"][-1]])


def test_source_preconditions() -> None:
    py, c, sh = (
        file_artifact("/app/src/tool.py", PYTHON),
        file_artifact("/app/src/main.c", C_CODE),
        file_artifact("/app/run.sh", SHELL),
    )
    d = discovery(py, c, sh)
    assert OPERATORS["python-source-inventory"].can_use(py, d)
    assert not OPERATORS["python-source-inventory"].can_use(file_artifact("/app/x.py", "x = 1\n"), d)
    assert not OPERATORS["python-source-inventory"].can_use(file_artifact("/app/x.py", "def (:\n"), d)
    assert OPERATORS["c-source-function-list"].can_use(c, d)
    assert not OPERATORS["c-source-function-list"].can_use(file_artifact("/app/x.h", "int f(int);\n#define X 1\n"), d)
    assert OPERATORS["shell-script-commands"].can_use(sh, d)
    assert not OPERATORS["shell-script-commands"].can_use(file_artifact("/app/x.sh", "#!/bin/sh\n# only\n\n"), d)
    assert not OPERATORS["shell-script-commands"].can_use(sh, discovery(sh, tools=()))


def test_c_rule() -> None:
    assert source_and_script_inventory.c_functions(C_CODE) == [("add", 3), ("main", 16), ("sub", 21), ("mul", 26)]


def test_outputs_inside_a_repository_go_next_to_it() -> None:
    repo, py = git_artifact(), file_artifact("/app/repo/src/mod.py", PYTHON)
    step = OPERATORS["python-source-inventory"].step(
        py, StepContext(discovery=discovery(repo, py), rng=random.Random(1))
    )
    assert step.produces[0].path == "/app/repo_mod_inventory.json"


@pytest.mark.parametrize(
    "name",
    [
        "git-commit-on-branch",
        "git-log-authors-csv",
        "git-tag-annotated",
        "python-source-inventory",
        "c-source-function-list",
        "shell-script-commands",
    ],
)
def test_build_is_deterministic(name: str) -> None:
    arts = {
        Kind.GIT: git_artifact(),
        Kind.PYTHON_SOURCE: file_artifact("/app/src/tool.py", PYTHON),
        Kind.C_SOURCE: file_artifact("/app/src/main.c", C_CODE),
        Kind.SHELL_SCRIPT: file_artifact("/app/run.sh", SHELL),
    }
    op = OPERATORS[name]
    art = arts[op.kinds[0]]
    steps = [
        op.step(art, StepContext(discovery=discovery(*arts.values()), rng=random.Random(11), tag="r1s1"))
        for _ in range(2)
    ]
    assert steps[0] == steps[1]
    assert "test_r1s1_" in steps[0].tests and steps[0].instruction[:1].isupper()
    compile(steps[0].tests, name, "exec")


@pytest.mark.docker
@pytest.mark.parametrize("operator", ["git-commit-on-branch", "git-log-authors-csv", "git-tag-annotated"])
def test_git_child_accepted(tmp_path, operator: str) -> None:
    proposal, report = extend_with(operator, parent_task(tmp_path, GIT_PARENT, dockerfile=GIT_DOCKERFILE))
    assert_accepted(proposal, report, operator)


@pytest.mark.docker
@pytest.mark.parametrize("operator", ["python-source-inventory", "c-source-function-list", "shell-script-commands"])
def test_source_child_accepted(tmp_path, operator: str) -> None:
    proposal, report = extend_with(operator, parent_task(tmp_path, SOURCE_PARENT))
    assert_accepted(proposal, report, operator)
