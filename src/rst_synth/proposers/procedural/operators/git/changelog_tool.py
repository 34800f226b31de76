"""A changelog tool for any git repository: conventional-commit sections, merges left out, a commit and
its revert cancelled; the tests run it on repositories they build (branches, merges, reverts)."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.git.history import commit_log, git_ready, unique_subject
from rst_synth.proposers.procedural.operators.kit.workflow import RUN_TOOL, inside_git, tool_path, work_root

CHANGELOG_PY = """
SECTIONS = (("breaking", "Breaking changes"), ("feat", "Features"), ("fix", "Fixes"), ("other", "Other"))
CONVENTIONAL = re.compile(r"^([A-Za-z]+)(?:\\(([^()]+)\\))?(!)?: (.+)$")
REVERTS = re.compile(r"This reverts commit ([0-9a-f]{40})")


def changelog(repo, start, end):
    out = subprocess.run(
        ["git", "-C", repo, "log", "--format=%H%x00%P%x00%ct%x00%B%x1e", start + ".." + end, "--"],
        check=True, capture_output=True, text=True,
    ).stdout
    commits = []
    for record in out.split("\\x1e"):
        record = record.lstrip("\\n")
        if not record:
            continue
        sha, parents, stamp, message = record.split("\\x00", 3)
        if len(parents.split()) == 1:
            commits.append((int(stamp), sha, message))
    shas = {sha for _, sha, _ in commits}
    cancelled = set()
    for _, sha, message in commits:
        for target in REVERTS.findall(message):
            if target in shas:
                cancelled.update((sha, target))
    lines = {key: [] for key, _ in SECTIONS}
    for _, sha, message in sorted(commits):
        if sha in cancelled:
            continue
        subject = message.split("\\n", 1)[0].strip()
        found = CONVENTIONAL.match(subject)
        if found is None:
            key, text = "other", subject
        else:
            kind, scope, bang, text = found.groups()
            key = "breaking" if bang else kind.lower() if kind.lower() in ("feat", "fix") else "other"
            text = (scope + ": " + text) if scope else text
        lines[key].append("- " + text + " (" + sha[:7] + ")")
    blocks = ["## " + title + "\\n" + "".join(line + "\\n" for line in lines[key]) for key, title in SECTIONS
              if lines[key]]
    return "\\n".join(blocks)
"""

FRESH_REPO_PY = """
def fresh_repo(path, seed):
    rng = random.Random(seed)
    clock = [1700000000]

    def git(*args):
        clock[0] += rng.randint(60, 4000)
        env = dict(os.environ, GIT_AUTHOR_NAME="Dev", GIT_AUTHOR_EMAIL="dev@example.com",
                   GIT_COMMITTER_NAME="Dev", GIT_COMMITTER_EMAIL="dev@example.com",
                   GIT_AUTHOR_DATE=f"@{clock[0]} +0000", GIT_COMMITTER_DATE=f"@{clock[0]} +0000")
        done = subprocess.run(["git", "-C", str(path), "-c", "commit.gpgsign=false", *args],
                              check=True, capture_output=True, text=True, env=env)
        return done.stdout.strip()

    def commit(subject, name):
        (path / name).write_text(subject + str(rng.random()) + "\\n", encoding="utf-8")
        git("add", "-A")
        git("commit", "-q", "-m", subject)
        return git("rev-parse", "HEAD")

    path.mkdir()
    git("init", "-q", "-b", "main")
    old = commit("fix: before the range", "old.txt")
    git("tag", "start")
    subjects = ["feat: add export", "feat(api)!: drop v1 routes", "fix(cli): quote paths", "docs: readme",
                "Plain subject without a type", "chore(deps): bump", "FIX: upper-case type", "feat: ünïcode name"]
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
"""


@register
class GitChangelogTool(Operator):
    """A reusable changelog generator for any repository and range, run on the artifact's history."""

    name = "git-changelog-tool"
    kinds = (Kind.GIT,)
    tools = ("git", "python3")
    weight = 3.0
    final = True  # a changelog is a report: no later step builds on it

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        log = commit_log(artifact)
        return (
            git_ready(artifact)
            and len(log) >= 3
            and sum(entry.get("parents") == 1 for entry in log[1:]) >= 2
            and unique_subject(log, log[0]["subject"])
            and not inside_git(f"{work_root(discovery)}/bin/x", discovery)
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        repo, main = artifact.path, artifact.details["branch"]
        start = commit_log(artifact)[0]["subject"]
        tool = tool_path(ctx, artifact, "changelog")
        out = ctx.output_path(artifact, "changelog", "md")
        solution = f"""mkdir -p {q(tool.rsplit("/", 1)[0])}
cat > {q(tool)} <<'PY'
#!/usr/bin/env python3
import re, subprocess, sys
{CHANGELOG_PY.strip()}
def main():
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
sys.exit(main())
PY
chmod 0755 {q(tool)}
start="$(git -C {q(repo)} log --first-parent --format='%H %s' {q("refs/heads/" + main)} |
  while read -r c s; do [ "$s" = {q(start)} ] && echo "$c" && break; done)"
{q(tool)} {q(repo)} "$start" {q("refs/heads/" + main)} > {q(out)}"""
        tests = f"""
TOOL, REPO, MAIN, START, OUT = {tool!r}, {repo!r}, {main!r}, {start!r}, {out!r}
{CHANGELOG_PY}{FRESH_REPO_PY}{RUN_TOOL}

def start_commit():
    log = subprocess.run(["git", "-C", REPO, "log", "--first-parent", "--format=%H%x00%s", "refs/heads/" + MAIN],
                         check=True, capture_output=True, text=True).stdout
    return next(line.split("\\0")[0] for line in log.splitlines() if line.split("\\0", 1)[1] == START)


def test_{ctx.tag}_changelog_of_the_repository():
    want = changelog(REPO, start_commit(), "refs/heads/" + MAIN)
    assert want and pathlib.Path(OUT).read_text(encoding="utf-8") == want


def test_{ctx.tag}_tool_on_a_fresh_repository(tmp_path):
    repo = tmp_path / "repo"
    start, end = fresh_repo(repo, {ctx.rng.randrange(10**6)})
    done = run_tool(TOOL, repo, start, end)
    assert done.returncode == 0, done.stderr[-500:]
    got = done.stdout.decode("utf-8")
    assert got == changelog(str(repo), start, end)
    assert "Merge branch" not in got and "- before the range (" not in got and "side branch fix" in got
    assert '- Revert "fix: before the range" (' in got  # its target lies before the range
    assert run_tool(TOOL, repo, end, end).stdout == b""


def test_{ctx.tag}_tool_rejects_an_unknown_ref(tmp_path):
    repo = tmp_path / "repo"
    fresh_repo(repo, 1)
    done = run_tool(TOOL, repo, "no-such-ref", "main")
    assert done.returncode == 2 and done.stdout == b"" and done.stderr.strip()
"""
        instruction = (
            f"Next, write a reusable changelog generator `{tool}` (an executable file with a `#!` line). "
            "`TOOL REPO FROM TO` lists the commits of the git repository REPO that are reachable from TO but "
            "not from FROM (as `git log FROM..TO`), except merge commits (more than one parent). A commit whose "
            "message has a line `This reverts commit <full hash>.` naming a commit of that list cancels it: both "
            "are left out (a revert of a commit outside the list stays). Each remaining commit becomes one line "
            "`- TEXT (HASH7)` with the first 7 characters of its hash. Subjects of the form `type: text`, "
            "`type(scope): text` or with `!` before the colon (`type(scope)!: text`) are conventional: TEXT is "
            "`scope: text` when there is a scope, else `text`; a `!` puts the line under `Breaking changes`, "
            "otherwise type `feat` goes under `Features`, `fix` under `Fixes` (types compared case-insensitively) "
            "and every other type under `Other`. Any other subject goes under `Other` whole. Print the sections "
            "in the order Breaking changes, Features, Fixes, Other, each as a heading line `## NAME` followed by "
            "its lines (oldest committer date first, ties by full hash), sections separated by one empty line, "
            "leaving out empty sections; every line ends with `\\n`, and an empty list prints nothing. Exit 0; "
            "when git cannot resolve FROM or TO, print an error to standard error, nothing to standard output, "
            f"and exit 2. Then run it on `{repo}` from the commit on `{main}` whose subject is `{start}` to "
            f"`{main}`, saving the output as `{out}`."
        )
        return Step(
            consumes=repo,
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[
                Artifact(path=out, kind=Kind.TEXT, details={"lines": 0}),
                Artifact(path=tool, kind=Kind.EXECUTABLE, executable=True),
            ],
        )
