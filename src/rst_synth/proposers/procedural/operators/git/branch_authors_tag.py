"""Operators on git repositories: a branch with a commit, author counts, an annotated tag."""

from __future__ import annotations

from typing import ClassVar

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import (
    Operator,
    Step,
    StepContext,
    q,
    register,
)
from rst_synth.proposers.procedural.operators.git.history import DATES, IDENTITIES, PLAIN_PATH, epoch, git_ready
from rst_synth.proposers.procedural.operators.git.shipped import (
    commit_on_branch,
    gitkit,
    log_authors_csv,
    tag_annotated,
)
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, render


@register
class GitCommitOnBranch(Operator):
    """A new branch with one deterministic commit adding a listing of the tracked files."""

    name = "git-commit-on-branch"
    purpose = Purpose.RELEASE
    kinds = (Kind.GIT,)
    tools = ("git",)
    FILES = ("FILES.txt", "MANIFEST.txt", "TRACKED_FILES.txt")
    MESSAGES = (
        "Add a listing of the tracked files",
        "docs: record the tracked file manifest",
        "Record every tracked path",
    )

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        files = artifact.details.get("files") or []
        return (
            git_ready(artifact)
            and 0 < len(files) < 200
            and all(PLAIN_PATH.fullmatch(f) for f in files)
            and any(f not in files for f in self.FILES)
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        d = artifact.details
        repo, orig = artifact.path, d["branch"]
        filename = ctx.rng.choice([f for f in self.FILES if f not in d["files"]])
        branch = f"{ctx.rng.choice(('manifest', 'inventory', 'listing'))}-{ctx.tag}"
        message = ctx.rng.choice(self.MESSAGES)
        who, email = ctx.rng.choice(IDENTITIES)
        date = ctx.rng.choice(DATES)
        env = (
            f"GIT_AUTHOR_NAME={q(who)} GIT_AUTHOR_EMAIL={q(email)} GIT_AUTHOR_DATE={q(date)} "
            f"GIT_COMMITTER_NAME={q(who)} GIT_COMMITTER_EMAIL={q(email)} GIT_COMMITTER_DATE={q(date)}"
        )
        solution = f"""wt="$(mktemp -d)"
git -C {q(repo)} worktree add -q -b {q(branch)} "$wt" {q("refs/heads/" + orig)}
git -C "$wt" -c core.quotePath=false ls-tree -r --name-only HEAD | LC_ALL=C sort > "$wt"/{q(filename)}
git -C "$wt" add -f -- {q(filename)}
{env} git -C "$wt" -c commit.gpgsign=false commit -q --no-verify -m {q(message)}
git -C {q(repo)} worktree remove --force "$wt"
"""
        tests = render(gitkit, ["git"], REPO=repo) + render(
            commit_on_branch,
            [
                "test_branch_adds_only_the_listing",
                "test_listing_content",
                "test_commit_identity_and_message",
                "test_original_branch_checked_out",
            ],
            tag=ctx.tag,
            ORIG=orig,
            BRANCH=branch,
            FILE=filename,
            MESSAGE=message,
            WHO=who,
            EMAIL=email,
            EPOCH=epoch(date),
        )
        instruction = (
            f"In the git repository `{repo}`, create a branch `{branch}` that starts at the tip of "
            f"`{orig}` and has exactly one new commit on top of it. That commit adds a single file, "
            f"`{filename}`, at the repository root and changes nothing else; the file lists every path tracked "
            f"in the tip commit of `{orig}` (full paths relative to the repository root, as "
            f"`git ls-tree -r --name-only` prints them), sorted in ascending byte order, one path per line, "
            f"each line ending with a newline. The commit message is `{message}`; author and committer are both "
            f"`{who} <{email}>`, and both the author date and the committer date are `{date}`. Leave `{orig}` "
            f"itself unchanged and still checked out in `{repo}`."
        )
        produced = artifact.model_copy(deep=True)
        return Step(
            consumes=repo,
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced],
        )


@register
class GitLogAuthorsCsv(Operator):
    """Commits per author on the current branch, as a CSV."""

    name = "git-log-authors-csv"
    purpose = Purpose.REPORT
    final = True
    kinds = (Kind.GIT,)
    tools = ("git", "python3")

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return git_ready(artifact)

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        repo, branch = artifact.path, artifact.details["branch"]
        key = ctx.rng.choice(("email", "name"))
        fmt = "%ae" if key == "email" else "%an"
        out = ctx.output_path(artifact, "authors", "csv")
        listing = '"${TMPDIR:-/tmp}/authors.$$"'
        script = python_script(render(log_authors_csv, ["write_counts"], OUT=out), "write_counts(sys.argv[1])")
        solution = (
            f"git -C {q(repo)} log --format={fmt} {q('refs/heads/' + branch)} > {listing}\n"
            + script.replace("python3 - <<'PY'", f"python3 - {listing} <<'PY'", 1)
            + f"\nrm -f {listing}\n"
        )
        tests = render(gitkit, ["git"], REPO=repo) + render(
            log_authors_csv, ["test_author_counts_in_order"], tag=ctx.tag, BRANCH=branch, FORMAT=fmt, OUT=out
        )
        instruction = (
            f"Then count the commits of branch `{branch}` in the git repository `{repo}` (every commit reachable "
            f"from its tip, merge commits included) per author {key}, exactly as recorded in the commits (no "
            f"mailmap), and write `{out}`: a comma-separated file with the header `author,commits`, one row "
            f"per distinct author {key} with its number of commits, rows ordered by that number (largest first), "
            f"ties broken by the author {key} in ascending string order (by character code)."
        )
        produced = csv_output(out, ["author", "commits"], ["commits"])
        return Step(
            consumes=repo,
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced],
        )


@register
class GitTagAnnotated(Operator):
    """An annotated tag on an earlier commit of the current branch."""

    name = "git-tag-annotated"
    purpose = Purpose.RELEASE
    kinds = (Kind.GIT,)
    tools = ("git",)
    NAMES: ClassVar[dict[str, tuple[str, ...]]] = {
        "root": ("baseline", "initial-import", "v0.0.0"),
        "parent": ("previous", "before-tip", "pre-tip"),
    }

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        tags = artifact.details.get("tags") or []
        return (
            git_ready(artifact)
            and artifact.details["commits"] >= 2
            and any(n not in tags for names in self.NAMES.values() for n in names)
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        d = artifact.details
        repo, branch, tags = artifact.path, d["branch"], d.get("tags") or []
        target = ctx.rng.choice(sorted(t for t, names in self.NAMES.items() if any(n not in tags for n in names)))
        tag = ctx.rng.choice([n for n in self.NAMES[target] if n not in tags])
        message = ctx.rng.choice((f"Tag {tag}", f"Mark the {target} commit of {branch}", "Reference point"))
        who, email = ctx.rng.choice(IDENTITIES)
        date = ctx.rng.choice(DATES)
        ref = q("refs/heads/" + branch)
        find = (
            f"git -C {q(repo)} rev-list --first-parent {ref} | tail -n 1"
            if target == "root"
            else f"git -C {q(repo)} rev-parse {q('refs/heads/' + branch + '~1')}"
        )
        solution = f"""target="$({find})"
GIT_COMMITTER_NAME={q(who)} GIT_COMMITTER_EMAIL={q(email)} GIT_COMMITTER_DATE={q(date)} \\
  git -C {q(repo)} -c tag.gpgsign=false tag -a {q(tag)} -m {q(message)} "$target"
"""
        tests = render(gitkit, ["git"], REPO=repo) + render(
            tag_annotated,
            ["test_annotated_tag_on_target", "test_tag_message_and_tagger"],
            tag=ctx.tag,
            BRANCH=branch,
            TAG=tag,
            TARGET=target,
            MESSAGE=message,
            WHO=who,
            EMAIL=email,
            EPOCH=epoch(date),
        )
        which = (
            "the root commit reached by following first parents back from the tip of"
            if target == "root"
            else "the first parent of the tip commit of"
        )
        instruction = (
            f"In the git repository `{repo}`, create an annotated tag `{tag}` that points directly at "
            f"{which} branch `{branch}`, with the tag message `{message}`; the tagger is `{who} <{email}>` and the "
            f"tag date is `{date}`. Do not move any branch."
        )
        produced = artifact.model_copy(deep=True)
        produced.details["tags"] = sorted([*tags, tag])
        return Step(
            consumes=repo,
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced],
        )
