"""A regression hunt in the lineage's repository: a planted patch series (an mbox) is applied on a new
branch, the first commit that breaks a stated check is found and recorded, and a revert of it ends the
branch. The tests replay the check on every commit of the branch and compare trees with the series."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.git.history import committer, epoch, git_ready
from rst_synth.proposers.procedural.operators.git.patch_series import check_script, make_series, mbox
from rst_synth.proposers.procedural.operators.git.shipped import bisect_series
from rst_synth.proposers.procedural.operators.kit.workflow import (
    fresh_path,
    inside_git,
    plant,
    planted_dir,
    work_root,
)
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import render

FOLDERS = ("toolkit", "helpers", "support", "shared")
MODULES = ("util", "common", "misc")


def _folder(artifact: Artifact) -> str | None:
    tops = {f.split("/", 1)[0] for f in artifact.details.get("files") or []}
    return next((f for f in FOLDERS if f not in tops), None)


@register
class GitBisectRevert(Operator):
    """Apply a planted patch series on a branch, find the first commit that breaks its check, revert it."""

    name = "git-bisect-revert"
    purpose = Purpose.REPAIR
    kinds = (Kind.GIT,)
    tools = ("git", "python3")
    weight = 3.0
    final = True  # the record is an end result; the repository itself stays open to later steps

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        root = work_root(discovery)
        return (
            git_ready(artifact)
            and _folder(artifact) is not None
            and len(artifact.details.get("files") or []) < 200  # the listing is whole: no folder clash unseen
            and not any(inside_git(f"{root}/{d}/x", discovery) for d in ("incoming", "bisect"))
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        repo, main = artifact.path, artifact.details["branch"]
        folder, module = _folder(artifact) or FOLDERS[0], ctx.rng.choice(MODULES)
        series = make_series(folder, module, ctx.rng)
        branch = f"series-{ctx.tag}"
        patches = fresh_path(ctx, planted_dir(ctx), f"{module}.mbox")
        check = fresh_path(ctx, planted_dir(ctx), f"check_{module}.py")
        out = fresh_path(ctx, f"{work_root(ctx.discovery)}/bisect", f"{module}_first_bad.txt")
        who, email, date, env = committer(ctx)
        author = f"GIT_AUTHOR_NAME={q(who)} GIT_AUTHOR_EMAIL={q(email)} GIT_AUTHOR_DATE={q(date)}"
        solution = f"""wt="$(mktemp -d)"
git -C {q(repo)} worktree add -q -b {q(branch)} "$wt" {q("refs/heads/" + main)}
{env} git -C "$wt" -c commit.gpgsign=false am -q {q(patches)}
bad=""
for c in $(git -C "$wt" rev-list --reverse {q("refs/heads/" + main)}..HEAD); do
  git -C "$wt" checkout -q "$c"
  if ! python3 {q(check)} "$wt" > /dev/null; then bad="$c"; break; fi
done
git -C "$wt" checkout -q {q(branch)}
test -n "$bad"
mkdir -p {q(out.rsplit("/", 1)[0])}
printf '%s %s\\n' "$bad" "$(git -C "$wt" log -1 --format=%s "$bad")" > {q(out)}
{author} {env} git -C "$wt" -c commit.gpgsign=false revert --no-edit "$bad" > /dev/null
python3 {q(check)} "$wt"
git -C {q(repo)} worktree remove --force "$wt"
"""
        commits = [(c.subject, c.author[0], c.author[1], c.epoch, c.files) for c in series.commits]
        tests = render(
            bisect_series,
            ["test_series_applied_on_the_branch", "test_first_bad_commit_recorded", "test_branch_ends_with_the_revert"],
            tag=ctx.tag,
            REPO=repo,
            MAIN=main,
            BRANCH=branch,
            CHECK=check,
            OUT=out,
            FOLDER=folder,
            WHO=who,
            EMAIL=email,
            EPOCH=epoch(date),
            SERIES=commits,
            FIXED=series.fixed,
        )
        instruction = (
            f"A patch series for the git repository `{repo}` arrived as the mbox `{patches}` (in the format "
            f"of `git format-patch`, already in the environment): it builds the helper module `{series.path}`. "
            f"Create a branch `{branch}` that starts at the tip of `{main}` and apply the series on it, one commit "
            "per patch in order, each keeping the patch's author name, email, date and subject (as `git am` does). "
            f"One of these commits broke a helper: `python3 {check} DIR` checks the helpers in the work tree DIR "
            "(a checkout of a commit) and exits 0 when they are correct, 1 otherwise; it passes on the first commit "
            "of the series and fails on the last. Find the first commit of the series on which it fails and write "
            f"`{out}` (create the folder): one line with that commit's full hash, a space and its subject. Then add "
            f"one more commit to `{branch}` that reverts that commit (exactly what `git revert --no-edit` makes: the "
            'subject `Revert "SUBJECT"` and a body line `This reverts commit HASH.`), with author and committer '
            f"`{who} <{email}>` and both dates `{date}`; the check passes on it. Leave `{main}` unchanged and still "
            f"checked out in `{repo}`, with a clean work tree."
        )
        return Step(
            consumes=repo,
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile=plant(patches, mbox(series)) + plant(check, check_script(series), "0755"),
            produces=[Artifact(path=out, kind=Kind.TEXT)],
        )
