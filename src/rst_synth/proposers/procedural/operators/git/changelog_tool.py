"""A changelog tool for any git repository: conventional-commit sections, merges left out, a commit and
its revert cancelled; the tests run it on repositories they build (branches, merges, reverts)."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.git.history import commit_log, git_ready, unique_subject
from rst_synth.proposers.procedural.operators.git.shipped import changelog
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.workflow import inside_git, tool_path, work_root
from rst_synth.proposers.procedural.shipping import render


@register
class GitChangelogTool(ToolOperator):
    """A reusable changelog generator for any repository and range, run on the artifact's history."""

    name = "git-changelog-tool"
    kinds = (Kind.GIT,)
    tools = ("git", "python3")
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
        code = render(changelog, ["main"])
        call = "sys.exit(main())"
        run = f"""start="$(git -C {q(repo)} log --first-parent --format='%H %s' {q("refs/heads/" + main)} |
  while read -r c s; do [ "$s" = {q(start)} ] && echo "$c" && break; done)"
{q(tool)} {q(repo)} "$start" {q("refs/heads/" + main)} > {q(out)}"""
        solution = self.tool_solution(tool, code, call, run)
        tests = render(
            changelog,
            ["test_changelog_of_the_repository", "test_tool_on_a_fresh_repository", "test_tool_rejects_an_unknown_ref"],
            tag=ctx.tag,
            TOOL=tool,
            REPO=repo,
            MAIN=main,
            START=start,
            OUT=out,
            SEED=ctx.rng.randrange(10**6),
        )
        instruction = (
            f"Write a reusable changelog generator `{tool}` (an executable file with a `#!` line). "
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
                self.executable(tool),
            ],
        )
