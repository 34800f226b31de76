"""Git history work: revert a named commit on a new branch, and backport the commits a rule selects
onto an older commit, resolving every conflict by a stated rule (the picked commit's version wins)."""

from __future__ import annotations

import re
from typing import Any

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.git.history import (
    commit_log,
    committer,
    epoch,
    git_ready,
    unique_subject,
)
from rst_synth.proposers.procedural.operators.git.shipped import revert_backport
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import render

_PATH = re.compile(r'[^\x00-\x1f"\\\x7f]+')


def _plain(entry: dict[str, Any]) -> bool:
    files = entry.get("files") or []
    return entry.get("parents") == 1 and bool(files) and all(_PATH.fullmatch(f) for f in files)


def _revertible(artifact: Artifact) -> list[str]:
    """Subjects of commits whose files no later first-parent commit touched (so a revert applies cleanly)."""
    log = commit_log(artifact)
    found = []
    for i, entry in enumerate(log[1:], 1):
        later = {f for e in log[i + 1 :] for f in e.get("files") or []}
        if _plain(entry) and unique_subject(log, entry["subject"]) and not later & set(entry["files"]):
            found.append(entry["subject"])
    return found


@register
class GitRevertOnBranch(Operator):
    """A branch off the tip with one commit that reverts a named earlier commit."""

    name = "git-revert-on-branch"
    purpose = Purpose.REPAIR
    kinds = (Kind.GIT,)
    tools = ("git",)
    weight = 3.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return git_ready(artifact) and bool(_revertible(artifact))

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        repo, main = artifact.path, artifact.details["branch"]
        subject = ctx.rng.choice(_revertible(artifact))
        branch = f"revert-{ctx.tag}"
        who, email, date, env = committer(ctx)
        author = f"GIT_AUTHOR_NAME={q(who)} GIT_AUTHOR_EMAIL={q(email)} GIT_AUTHOR_DATE={q(date)}"
        solution = f"""target="$(git -C {q(repo)} rev-list --first-parent {q("refs/heads/" + main)} |
  while read -r c; do [ "$(git -C {q(repo)} log -1 --format=%s "$c")" = {q(subject)} ] && echo "$c" && break; done)"
wt="$(mktemp -d)"
git -C {q(repo)} worktree add -q -b {q(branch)} "$wt" {q("refs/heads/" + main)}
{author} {env} git -C "$wt" -c commit.gpgsign=false revert --no-edit "$target" >/dev/null
git -C {q(repo)} worktree remove --force "$wt"
"""
        tests = render(
            revert_backport,
            ["test_branch_reverts_exactly_that_commit", "test_revert_commit_metadata"],
            tag=ctx.tag,
            REPO=repo,
            MAIN=main,
            BRANCH=branch,
            SUBJECT=subject,
            WHO=who,
            EMAIL=email,
            EPOCH=epoch(date),
        )
        instruction = (
            f"In the git repository `{repo}`, create a branch `{branch}` that starts at the tip of `{main}` "
            f"and has exactly one new commit: the revert of the commit on `{main}` whose subject is `{subject}` "
            "(it undoes exactly that commit's changes: every file it changed gets back its content and mode from "
            "before it, a file it added is removed, and nothing else changes). The new commit's subject is "
            f'`Revert "{subject}"`; author and committer are both `{who} <{email}>`, with both dates `{date}`. '
            f"Leave `{main}` unchanged and still checked out."
        )
        return Step(
            consumes=repo,
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[artifact.model_copy(deep=True)],
        )


def _rules(log: list[dict[str, Any]], base: int) -> list[tuple[str, str]]:
    """(kind, argument) of the rules that pick some but not all of the commits after `base`."""
    later = [e for e in log[base + 1 :] if e.get("parents") == 1]
    prefixes = {re.split(r"[:( ]", e["subject"], maxsplit=1)[0] for e in later}
    folders = {f.split("/", 1)[0] for e in later for f in e.get("files") or [] if "/" in f}
    rules = [("prefix", p) for p in sorted(prefixes) if re.fullmatch(r"[A-Za-z]{2,12}", p)]
    rules += [("folder", d) for d in sorted(folders) if re.fullmatch(r"[A-Za-z0-9_.-]{1,30}", d)]
    return [r for r in rules if 0 < sum(_selects(r, e) for e in later) < len(later)]


def _selects(rule: tuple[str, str], entry: dict[str, Any]) -> bool:
    kind, arg = rule
    if kind == "prefix":
        return bool(entry["subject"].startswith(arg))
    return any(f.startswith(arg + "/") for f in entry.get("files") or [])


def _backports(artifact: Artifact) -> list[tuple[str, tuple[str, str]]]:
    log = commit_log(artifact)
    choices = []
    for base in range(len(log) - 2):
        later = log[base + 1 :]
        if not unique_subject(log, log[base]["subject"]) or not all(_plain(e) for e in later if e.get("parents") == 1):
            continue
        choices += [(log[base]["subject"], rule) for rule in _rules(log, base)]
    return choices


@register
class GitBackportByRule(Operator):
    """Backport the commits a rule selects onto an older commit; the picked version of a file wins."""

    name = "git-backport-by-rule"
    purpose = Purpose.REPAIR
    kinds = (Kind.GIT,)
    tools = ("git",)
    weight = 3.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return git_ready(artifact) and bool(_backports(artifact))

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        repo, main = artifact.path, artifact.details["branch"]
        base, (kind, arg) = ctx.rng.choice(_backports(artifact))
        branch = f"backport-{ctx.tag}"
        who, email, date, env = committer(ctx)
        if kind == "prefix":
            pick = f'case "$(git -C {q(repo)} log -1 --format=%s "$c")" in {q(arg)}*) ;; *) continue ;; esac'
            rule = f"whose subject starts with `{arg}` (case-sensitive)"
        else:
            pick = (
                f'git -C {q(repo)} diff-tree --no-commit-id -r --name-only "$c^" "$c" | grep -q {q("^" + arg + "/")} '
                "|| continue"
            )
            rule = f"that change at least one file under the top-level folder `{arg}/`"
        solution = f"""base="$(git -C {q(repo)} rev-list --first-parent {q("refs/heads/" + main)} |
  while read -r c; do [ "$(git -C {q(repo)} log -1 --format=%s "$c")" = {q(base)} ] && echo "$c" && break; done)"
wt="$(mktemp -d)"
git -C {q(repo)} worktree add -q -b {q(branch)} "$wt" "$base"
for c in $(git -C {q(repo)} rev-list --reverse --first-parent --no-merges "$base..refs/heads/"{q(main)}); do
  {pick}
  git -C "$wt" -c core.quotePath=false diff-tree --no-commit-id --no-renames -r --name-status "$c^" "$c" |
  while IFS=$'\\t' read -r status path; do
    if [ "$status" = D ]; then git -C "$wt" rm -q --ignore-unmatch -- "$path"
    else git -C "$wt" checkout "$c" -- "$path"; fi
  done
  {env} git -C "$wt" -c commit.gpgsign=false commit -q --allow-empty --no-verify -C "$c"
done
git -C {q(repo)} worktree remove --force "$wt"
"""
        tests = render(
            revert_backport,
            ["test_backport_commits_in_order", "test_picked_version_of_every_file_wins"],
            tag=ctx.tag,
            REPO=repo,
            MAIN=main,
            BRANCH=branch,
            BASE=base,
            WHO=who,
            EMAIL=email,
            EPOCH=epoch(date),
            RULE=kind,
            ARG=arg,
        )
        instruction = (
            f"Backport fixes in the git repository `{repo}`: create a branch `{branch}` that starts at the "
            f"commit on `{main}` whose subject is `{base}`. Of the commits after it on the first-parent chain of "
            f"`{main}` (oldest first, merge commits never), take those {rule}, and for each one add one commit to "
            f"`{branch}`, in the same order, with the same message and the same author (name, email and date); "
            f"the committer is `{who} <{email}>` with the date `{date}`. Conflicts are resolved by one rule: after "
            "each new commit, every file the original commit changed (compared with its first parent) has exactly "
            "its content and mode in the original commit, or is absent if the original commit deleted it, and "
            "every other file is as it was on the branch before (a commit that ends up changing nothing is still "
            f"made). Leave `{main}` unchanged and still checked out."
        )
        return Step(
            consumes=repo,
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[artifact.model_copy(deep=True)],
        )
