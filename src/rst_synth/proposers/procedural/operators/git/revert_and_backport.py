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

_PATH = re.compile(r'[^\x00-\x1f"\\\x7f]+')

GIT_PY = """
def git(*args):
    return subprocess.run(["git", "-C", REPO, *args], check=True, capture_output=True, text=True).stdout


def by_subject(subject):
    for line in git("log", "--first-parent", "--format=%H%x00%s", "refs/heads/" + MAIN).splitlines():
        commit, text = line.split("\\0", 1)
        if text == subject:
            return commit
    raise AssertionError("no commit with subject " + subject)


def tree(ref):
    entries = {}
    for item in git("ls-tree", "-r", "-z", ref).split("\\0"):
        if item:
            meta, path = item.split("\\t", 1)
            mode, _, blob = meta.split()
            entries[path] = (mode, blob)
    return entries


def changed(commit):
    out = git("diff-tree", "--no-commit-id", "--no-renames", "-r", "-z", "--name-only", commit + "^", commit)
    return [path for path in out.split("\\0") if path]


def stamp(ref, who):
    fmt = "%an%x00%ae%x00%at" if who == "author" else "%cn%x00%ce%x00%ct"
    return git("log", "-1", "--format=" + fmt, ref).strip().split("\\0")
"""


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
        tests = f"""
REPO, MAIN, BRANCH, SUBJECT = {repo!r}, {main!r}, {branch!r}, {subject!r}
WHO, EMAIL, EPOCH = {who!r}, {email!r}, {epoch(date)!r}
{GIT_PY}

def test_{ctx.tag}_branch_reverts_exactly_that_commit():
    target, tip = by_subject(SUBJECT), git("rev-parse", "refs/heads/" + MAIN).strip()
    assert git("rev-list", "--parents", "-n", "1", "refs/heads/" + BRANCH).split()[1:] == [tip]
    want, before = tree(tip), tree(target + "^")
    for path in changed(target):
        if path in before:
            want[path] = before[path]
        else:
            want.pop(path, None)
    assert tree("refs/heads/" + BRANCH) == want


def test_{ctx.tag}_revert_commit_metadata():
    ref = "refs/heads/" + BRANCH
    assert git("log", "-1", "--format=%s", ref).strip() == 'Revert "' + SUBJECT + '"'
    assert stamp(ref, "author") == [WHO, EMAIL, str(EPOCH)] == stamp(ref, "committer")
    assert git("symbolic-ref", "HEAD").strip() == "refs/heads/" + MAIN
"""
        instruction = (
            f"Next, in the git repository `{repo}`, create a branch `{branch}` that starts at the tip of `{main}` "
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
            selected = f"git('log', '-1', '--format=%s', commit).startswith({arg!r})"
        else:
            pick = (
                f'git -C {q(repo)} diff-tree --no-commit-id -r --name-only "$c^" "$c" | grep -q {q("^" + arg + "/")} '
                "|| continue"
            )
            rule = f"that change at least one file under the top-level folder `{arg}/`"
            selected = f"any(p.startswith({arg + '/'!r}) for p in changed(commit))"
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
        tests = f"""
REPO, MAIN, BRANCH, BASE = {repo!r}, {main!r}, {branch!r}, {base!r}
WHO, EMAIL, EPOCH = {who!r}, {email!r}, {epoch(date)!r}
{GIT_PY}

def picked():
    base = by_subject(BASE)
    span = git("rev-list", "--reverse", "--first-parent", "--no-merges", base + "..refs/heads/" + MAIN).split()
    return base, [commit for commit in span if {selected}]


def test_{ctx.tag}_backport_commits_in_order():
    base, picks = picked()
    commits = git("rev-list", "--reverse", "--first-parent", base + "..refs/heads/" + BRANCH).split()
    assert picks and len(commits) == len(picks)
    assert git("rev-list", "--parents", "-n", "1", commits[0]).split()[1:] == [base]
    for new, old in zip(commits, picks):
        assert len(git("rev-list", "--parents", "-n", "1", new).split()) == 2
        assert git("log", "-1", "--format=%B", new) == git("log", "-1", "--format=%B", old)
        assert stamp(new, "author") == stamp(old, "author")
        assert stamp(new, "committer") == [WHO, EMAIL, str(EPOCH)]


def test_{ctx.tag}_picked_version_of_every_file_wins():
    base, picks = picked()
    commits = git("rev-list", "--reverse", "--first-parent", base + "..refs/heads/" + BRANCH).split()
    want = tree(base)
    for new, old in zip(commits, picks):
        after = tree(old)
        for path in changed(old):
            if path in after:
                want[path] = after[path]
            else:
                want.pop(path, None)
        assert tree(new) == want, new
    assert git("symbolic-ref", "HEAD").strip() == "refs/heads/" + MAIN
"""
        instruction = (
            f"Next, backport fixes in the git repository `{repo}`: create a branch `{branch}` that starts at the "
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
