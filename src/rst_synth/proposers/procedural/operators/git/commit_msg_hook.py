"""A commit-msg hook for the lineage's repository that enforces a stated message policy (Conventional
Commits subjects, a length limit, a blank line before the body, a note for breaking changes), installed
in the repository and run over its history as an audit. The tests run the hook on messages they write
and commit with it in a clone of the repository."""

from __future__ import annotations

import re

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.git.history import commit_log, git_ready
from rst_synth.proposers.procedural.operators.git.shipped import commit_msg
from rst_synth.proposers.procedural.operators.kit.workflow import fresh_path, inside_git, stem_of, work_root
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import render, write_tool

TYPES = ("build", "chore", "ci", "docs", "feat", "fix", "perf", "refactor", "revert", "style", "test")


def _violations(artifact: Artifact, limit: int) -> int:
    """How many subjects of the logged history the policy rejects (bodies unknown: never fewer)."""
    space: dict[str, object] = {"re": re}
    exec(render(commit_msg, ["problems"], TYPES=TYPES, MAX_SUBJECT=limit), space)  # the rules the hook ships
    check = space["problems"]
    assert callable(check)
    return sum(bool(check(entry["subject"])) for entry in commit_log(artifact) if entry.get("parents", 1) <= 1)


def _hook_path(repo: str) -> str:
    return f"{repo}/.git/hooks/commit-msg"


@register
class GitCommitMsgHook(Operator):
    """A commit-msg hook enforcing a stated message policy, installed and run over the history as an audit."""

    name = "git-commit-msg-hook"
    purpose = Purpose.TOOL
    kinds = (Kind.GIT,)
    tools = ("git", "python3")
    weight = 3.0
    final = True  # the audit is an end result; the repository stays open to later steps

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        root = work_root(discovery)
        return (
            git_ready(artifact)
            and 0 < _violations(artifact, 80) < len(commit_log(artifact))
            and not inside_git(f"{root}/hooks/x", discovery)
            and _hook_path(artifact.path) not in discovery.paths()
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        repo, main = artifact.path, artifact.details["branch"]
        limit = ctx.rng.choice([60, 72, 72, 80])
        hook = _hook_path(repo)
        out = fresh_path(ctx, f"{work_root(ctx.discovery)}/hooks", f"{stem_of(artifact)}_message_audit.txt")
        seed = ctx.rng.randrange(10**6)
        code = render(commit_msg, ["main"], TYPES=TYPES, MAX_SUBJECT=limit)
        call = 'if __name__ == "__main__":\n    sys.exit(main(sys.argv))'
        solution = f"""mkdir -p {q(out.rsplit("/", 1)[0])} {q(hook.rsplit("/", 1)[0])}
{write_tool(hook, code, call)}
: > {q(out)}
msg="$(mktemp)"
for c in $(git -C {q(repo)} rev-list --reverse --first-parent --no-merges {q("refs/heads/" + main)}); do
  git -C {q(repo)} cat-file commit "$c" | sed '1,/^$/d' > "$msg"
  short="$(git -C {q(repo)} rev-parse --short=7 "$c")"
  {q(hook)} "$msg" 2>&1 >/dev/null | sed "s/^commit-msg: /$short /" >> {q(out)} || true
done
rm -f "$msg"
"""
        tests = render(
            commit_msg,
            ["test_audit_of_the_history", "test_hook_on_fresh_messages", "test_hook_guards_commits_in_a_clone"],
            tag=ctx.tag,
            REPO=repo,
            MAIN=main,
            HOOK=hook,
            OUT=out,
            SEED=seed,
            TYPES=TYPES,
            MAX_SUBJECT=limit,
        )
        rules = (
            f"Install a `commit-msg` hook in the git repository `{repo}`: the executable file `{hook}` (with a "
            "`#!` line). Git runs it with one argument, the file holding the commit message; it checks the message "
            "and exits 0 when it is acceptable, or prints one line `commit-msg: PROBLEM` per problem to standard "
            "error (in the order below) and exits 1. Lines starting with `#` are ignored, and so are trailing blank "
            "lines. The first remaining line is the subject; an empty message (or an empty subject) has the single "
            'problem `empty-message`. A subject starting with `Merge `, `Revert "`, `fixup! ` or `squash! ` is '
            "accepted as it is, whatever follows. Otherwise the problems are, in this order: `subject-format` when the "
            "subject is not `TYPE: TEXT`, `TYPE(SCOPE): TEXT`, `TYPE!: TEXT` or `TYPE(SCOPE)!: TEXT` (TYPE lower-case "
            "letters, SCOPE lower-case letters, digits and `-`, exactly one space after the colon, TEXT starting with "
            "a non-blank character); else `unknown-type` when TYPE is not one of "
            f"{', '.join(f'`{t}`' for t in TYPES)}; "
            f"else `trailing-period` when TEXT ends with `.`. Then `subject-too-long` when the subject has more than "
            f"{limit} characters; `missing-blank-line` when a second line follows the subject and is not empty; and "
            "`breaking-without-note` when the subject has the `!` form but no line after the second starts with "
            "`BREAKING CHANGE: `. Then audit the history of "
            f"`{main}`: for every commit on its first-parent chain, oldest first, merge commits left out, run the "
            "policy on the commit's full message and write one line `HASH7 PROBLEM` per problem (HASH7: the first 7 "
            f"characters of the commit's hash) to `{out}` (create the folder)."
        )
        return Step(
            consumes=repo,
            solution=solution,
            tests=tests,
            instruction=rules,
            produces=[Artifact(path=out, kind=Kind.TEXT)],
        )
