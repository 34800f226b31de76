"""Code churn of a repository: lines added and deleted per author and ISO week, from each commit's diff
against its first parent (merges left out, binary files and vendored or lock files not counted), as a
tool the tests run on repositories they build; its table is data later steps group and add up."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.git.history import git_ready
from rst_synth.proposers.procedural.operators.git.shipped import churn
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.workflow import inside_git, tool_path, work_root
from rst_synth.proposers.procedural.shipping import render

HEADER = ["author", "week", "commits", "additions", "deletions"]


def _out_of_git(artifact: Artifact, discovery: Discovery) -> bool:
    root = work_root(discovery)
    return not inside_git(f"{root}/bin/x", discovery) and not inside_git(f"{artifact.directory}/x", discovery)


@register
class GitChurnCsv(ToolOperator):
    """Lines added and deleted per author and ISO week, by a tool with stated counting rules."""

    name = "git-churn-csv"
    kinds = (Kind.GIT,)
    tools = ("git", "python3")
    once = True  # the tool is the same program whatever the repository: a second step would copy it

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return git_ready(artifact) and artifact.details["commits"] >= 3 and _out_of_git(artifact, discovery)

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        repo, main = artifact.path, artifact.details["branch"]
        tool = tool_path(ctx, artifact, "churn")
        out = ctx.output_path(artifact, "churn", "csv")
        seed = ctx.rng.randrange(10**6)
        code = render(churn, ["main"])
        call = "sys.exit(main(sys.argv))"
        run = f"{q(tool)} {q(repo)} {q('refs/heads/' + main)} > {q(out)}"
        solution = self.tool_solution(tool, code, call, run)
        tests = render(
            churn,
            ["test_churn_of_the_repository", "test_tool_on_fresh_repositories", "test_tool_rejects_an_unknown_ref"],
            tag=ctx.tag,
            TOOL=tool,
            REPO=repo,
            MAIN=main,
            OUT=out,
            SEED=seed,
        )
        instruction = " ".join(
            f"""Measure code churn in the git repository `{repo}`. Write a command-line tool `{tool}` (an
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
            produces=[csv_output(out, HEADER, HEADER[2:]), self.executable(tool)],
        )
