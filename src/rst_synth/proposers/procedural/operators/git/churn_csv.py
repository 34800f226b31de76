"""Code churn of a repository: lines added and deleted per author and ISO week, from each commit's diff
against its first parent (merges left out, binary files and vendored or lock files not counted), as a
tool the tests run on repositories they build; its table is data later steps group and add up."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.git.history import git_ready
from rst_synth.proposers.procedural.operators.kit.workflow import RUN_TOOL, inside_git, tool_path, work_root

HEADER = ["author", "week", "commits", "additions", "deletions"]

CHURN_PY = r"""
NOT_COUNTED = re.compile(r"(^|/)vendor/|\.lock$")


def git_out(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True).stdout


def churn(repo, ref):
    rows = {}
    listing = git_out(repo, "log", "--no-merges", "--format=%H%x00%ae%x00%at", ref, "--").decode("utf-8")
    for line in listing.splitlines():
        sha, email, stamp = line.split("\0")
        day = datetime.datetime.fromtimestamp(int(stamp), datetime.timezone.utc).date()
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
        [author, week, str(c), str(a), str(d)] for (author, week), (c, a, d) in ordered]
"""

TOOL_MAIN = r"""
def main(argv):
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


sys.exit(main(sys.argv))
"""

FRESH_PY = r"""
def fresh_repo(path, seed):
    rng = random.Random(seed)
    people = [("Ana", "Ana.Lopez@Example.com"), ("Ana L", "ana.lopez@example.com"), ("Bo", "bo@x.org"),
              ("Cy", "cy@x.org")]
    clock = [datetime.datetime(2026, 1, 4, 20, 0, tzinfo=datetime.timezone.utc).timestamp()]

    def git(*args, who=None):
        who = who or rng.choice(people)
        clock[0] += rng.choice([1800, 5400, 86400, 3 * 86400])
        zone = rng.choice(["+0000", "-0500", "+0900", "+0530"])
        stamp = f"@{int(clock[0])} {zone}"
        env = dict(os.environ, GIT_AUTHOR_NAME=who[0], GIT_AUTHOR_EMAIL=who[1], GIT_AUTHOR_DATE=stamp,
                   GIT_COMMITTER_NAME="CI", GIT_COMMITTER_EMAIL="ci@x.org", GIT_COMMITTER_DATE=stamp)
        return subprocess.run(["git", "-C", str(path), "-c", "commit.gpgsign=false", *args], check=True,
                              capture_output=True, env=env)

    def write(name, lines=None, data=None):
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data if data is not None else "".join(f"{l}\n" for l in lines).encode("utf-8"))

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
        target = rng.choice(["src/app.py", "src/util.py", "vendor/lib.js", "poetry.lock", "logo.png",
                             "docs/ünï code.md", "src/sub/vendor/x.txt", "README"])
        if target == "logo.png":
            write(target, data=bytes(rng.randrange(256) for _ in range(300)))
        else:
            old = (path / target).read_text(encoding="utf-8").splitlines() if (path / target).exists() else []
            keep = [l for l in old if rng.random() < 0.7]
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
"""


def _out_of_git(artifact: Artifact, discovery: Discovery) -> bool:
    root = work_root(discovery)
    return not inside_git(f"{root}/bin/x", discovery) and not inside_git(f"{artifact.directory}/x", discovery)


@register
class GitChurnCsv(Operator):
    """Lines added and deleted per author and ISO week, by a tool with stated counting rules."""

    name = "git-churn-csv"
    kinds = (Kind.GIT,)
    tools = ("git", "python3")
    weight = 3.0
    once = True  # the tool is the same program whatever the repository: a second step would copy it

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return git_ready(artifact) and artifact.details["commits"] >= 3 and _out_of_git(artifact, discovery)

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        repo, main = artifact.path, artifact.details["branch"]
        tool = tool_path(ctx, artifact, "churn")
        out = ctx.output_path(artifact, "churn", "csv")
        seed = ctx.rng.randrange(10**6)
        solution = f"""mkdir -p {q(tool.rsplit("/", 1)[0])}
cat > {q(tool)} <<'PY'
#!/usr/bin/env python3
import csv, datetime, re, subprocess, sys
{CHURN_PY.strip()}

{TOOL_MAIN.strip()}
PY
chmod 0755 {q(tool)}
{q(tool)} {q(repo)} {q("refs/heads/" + main)} > {q(out)}"""
        tests = f"""
TOOL, REPO, MAIN, OUT, SEED = {tool!r}, {repo!r}, {main!r}, {out!r}, {seed}
{CHURN_PY}{FRESH_PY}{RUN_TOOL}

def read_csv(text):
    return list(csv.reader(io.StringIO(text, newline="")))


def test_{ctx.tag}_churn_of_the_repository():
    want = churn(REPO, "refs/heads/" + MAIN)
    assert len(want) > 1
    assert read_csv(pathlib.Path(OUT).read_text(encoding="utf-8")) == want


def test_{ctx.tag}_tool_on_fresh_repositories(tmp_path):
    for k in range(2):
        repo = tmp_path / f"repo{{k}}"
        ref = fresh_repo(repo, SEED + k)
        done = run_tool(TOOL, repo, ref)
        assert done.returncode == 0, done.stderr[-500:]
        got = read_csv(done.stdout.decode("utf-8"))
        assert got == churn(repo, ref)
        commits = int(subprocess.run(["git", "-C", str(repo), "rev-list", "--count", "--no-merges", ref],
                                     capture_output=True, check=True).stdout)
        assert sum(int(row[2]) for row in got[1:]) == commits


def test_{ctx.tag}_tool_rejects_an_unknown_ref(tmp_path):
    repo = tmp_path / "repo"
    fresh_repo(repo, 1)
    done = run_tool(TOOL, repo, "no-such-ref")
    assert done.returncode == 2 and done.stdout == b"" and done.stderr.strip()
"""
        instruction = " ".join(
            f"""Next, measure code churn in the git repository `{repo}`. Write a command-line tool `{tool}` (an
            executable file with a `#!` line): `{tool} REPO REF` prints, as CSV with the header
            `author,week,commits,additions,deletions`, one row per (author, week) over the commits reachable from
            REF, leaving out merge commits (more than one parent). The author is the commit's author email in lower
            case (no mailmap); the week is the ISO week of the author date in UTC, written `YYYY-Www` (ISO year,
            two-digit week, e.g. `2026-W01`). `commits` counts the commits; `additions` and `deletions` add up the
            lines each commit added and deleted in its diff against its first parent (against an empty tree for a
            root commit) with rename detection off, as `git diff --numstat` counts them, except that binary files
            (numstat `-`), files inside a folder named `vendor` at any depth, and files whose name ends in `.lock`
            are not counted (their commits still are). Rows are ordered by week, then by author, in code-point
            order; values are written as plain decimals, lines end with `\\n`. It exits 0; when git fails (e.g. REF
            is unknown) it prints an error to standard error, nothing to standard output, and exits 2. Then run it
            on `{repo}` for `{main}` and save the output as `{out}`.""".split()
        )
        return Step(
            consumes=repo,
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[csv_output(out, HEADER, HEADER[2:]), Artifact(path=tool, kind=Kind.EXECUTABLE, executable=True)],
        )
