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
from rst_synth.proposers.procedural.operators.kit.workflow import RUN_TOOL, fresh_path, inside_git, stem_of, work_root

TYPES = ("build", "chore", "ci", "docs", "feat", "fix", "perf", "refactor", "revert", "style", "test")

POLICY_PY = r"""
SUBJECT = re.compile(r"(?P<type>[a-z]+)(\((?P<scope>[a-z0-9-]+)\))?(?P<bang>!)?: (?P<text>\S.*)")
EXEMPT = ("Merge ", 'Revert "', "fixup! ", "squash! ")


def problems(message):
    lines = [line for line in message.split("\n") if not line.startswith("#")]
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines or not lines[0].strip():
        return ["empty-message"]
    subject, found = lines[0], []
    if subject.startswith(EXEMPT):
        return []
    match = SUBJECT.fullmatch(subject)
    if match is None:
        found.append("subject-format")
    elif match["type"] not in TYPES:
        found.append("unknown-type")
    elif match["text"].endswith("."):
        found.append("trailing-period")
    if len(subject) > MAX_SUBJECT:
        found.append("subject-too-long")
    if len(lines) > 1 and lines[1] != "":
        found.append("missing-blank-line")
    if match is not None and match["bang"] and not any(l.startswith("BREAKING CHANGE: ") for l in lines[2:]):
        found.append("breaking-without-note")
    return found
"""

FRESH_PY = r"""
def fresh_messages(seed):
    rng = random.Random(seed)
    text = ["add the export", "handle an empty input file", "drop v1 routes", "ünïcode names", "x" * 80]
    made = [
        "", "\n\n", "# only a comment\n", "Merge branch 'side'", 'Revert "feat: x"\n\nThis reverts commit 1.',
        "fixup! feat: x", "squash! anything at all.", "feat: ok\n# comment\n", "feat: ok\nno blank line",
        "Feat: capital type", "feat(UI): upper scope", "feat (api): space", "feat:missing space", "feat: ",
        "wip: unknown type", "fix: ends with a period.", "feat(api)!: drop it",
        "feat(api)!: drop it\n\nBREAKING CHANGE: gone", "feat!: x\nBREAKING CHANGE: no blank line",
        "docs: " + "y" * (MAX_SUBJECT - 6), "docs: " + "y" * (MAX_SUBJECT - 5),
    ]
    for _ in range(12):
        kind = rng.choice(TYPES + ("wip", "Fix", "feature"))
        scope = rng.choice(["", "(api)", "(cli-2)", "(Api)", "()"])
        subject = kind + scope + rng.choice(["", "!"]) + rng.choice([": ", ":", " : "]) + rng.choice(text)
        subject += rng.choice(["", ".", "  "])
        body = rng.choice(["", "\n\nmore words", "\nno gap", "\n\nBREAKING CHANGE: removed", "\n\n# note\n"])
        made.append(subject + body + rng.choice(["", "\n", "\n\n"]))
    return made
"""


def _violations(artifact: Artifact, limit: int) -> int:
    """How many subjects of the logged history the policy rejects (bodies unknown: never fewer)."""
    space: dict[str, object] = {"re": re, "TYPES": TYPES, "MAX_SUBJECT": limit}
    exec(POLICY_PY, space)  # our own constant: the same rules the hook states
    check = space["problems"]
    assert callable(check)
    return sum(bool(check(entry["subject"])) for entry in commit_log(artifact) if entry.get("parents", 1) <= 1)


def _hook_path(repo: str) -> str:
    return f"{repo}/.git/hooks/commit-msg"


@register
class GitCommitMsgHook(Operator):
    """A commit-msg hook enforcing a stated message policy, installed and run over the history as an audit."""

    name = "git-commit-msg-hook"
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
        solution = f"""mkdir -p {q(out.rsplit("/", 1)[0])} {q(hook.rsplit("/", 1)[0])}
cat > {q(hook)} <<'PY'
#!/usr/bin/env python3
import re, sys

TYPES, MAX_SUBJECT = {TYPES!r}, {limit}
{POLICY_PY.strip()}


def main(argv):
    with open(argv[1], encoding="utf-8") as f:
        found = problems(f.read())
    for problem in found:
        print("commit-msg: " + problem, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
PY
chmod 0755 {q(hook)}
: > {q(out)}
msg="$(mktemp)"
for c in $(git -C {q(repo)} rev-list --reverse --first-parent --no-merges {q("refs/heads/" + main)}); do
  git -C {q(repo)} cat-file commit "$c" | sed '1,/^$/d' > "$msg"
  short="$(git -C {q(repo)} rev-parse --short=7 "$c")"
  {q(hook)} "$msg" 2>&1 >/dev/null | sed "s/^commit-msg: /$short /" >> {q(out)} || true
done
rm -f "$msg"
"""
        tests = f"""
REPO, MAIN, HOOK, OUT, SEED = {repo!r}, {main!r}, {hook!r}, {out!r}, {seed}
TYPES, MAX_SUBJECT = {TYPES!r}, {limit}
{POLICY_PY}{FRESH_PY}{RUN_TOOL}

def git(repo, *args, env=None):
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, env=env)


def message_of(commit):
    raw = git(REPO, "cat-file", "commit", commit).stdout.decode("utf-8")
    return raw.split("\\n\\n", 1)[1] if "\\n\\n" in raw else ""


def test_{ctx.tag}_audit_of_the_history():
    commits = git(REPO, "rev-list", "--reverse", "--first-parent", "--no-merges", "refs/heads/" + MAIN).stdout.split()
    want = "".join(c.decode()[:7] + " " + p + "\\n" for c in commits for p in problems(message_of(c.decode())))
    assert want
    assert pathlib.Path(OUT).read_text(encoding="utf-8") == want


def test_{ctx.tag}_hook_on_fresh_messages(tmp_path):
    assert os.access(HOOK, os.X_OK)
    for k, message in enumerate(fresh_messages(SEED)):
        path = tmp_path / f"msg{{k}}"
        path.write_text(message, encoding="utf-8")
        done = run_tool(HOOK, path)
        want = problems(message)
        assert done.returncode == (1 if want else 0), (message, done.stderr)
        assert done.stderr.decode("utf-8").splitlines() == ["commit-msg: " + p for p in want], message


def test_{ctx.tag}_hook_guards_commits_in_a_clone(tmp_path):
    clone = tmp_path / "clone"
    assert git(tmp_path, "clone", "-q", "--no-hardlinks", REPO, clone).returncode == 0
    shutil.copy2(HOOK, clone / ".git" / "hooks" / "commit-msg")
    env = dict(os.environ, GIT_AUTHOR_NAME="T", GIT_AUTHOR_EMAIL="t@x.org", GIT_COMMITTER_NAME="T",
               GIT_COMMITTER_EMAIL="t@x.org")
    messages = ("feat(cli): accept a file", "Update stuff", "fix: it works.", "perf!: x\\n\\nBREAKING CHANGE: api")
    for message in messages:
        before = git(clone, "rev-parse", "HEAD").stdout
        done = git(clone, "-c", "commit.gpgsign=false", "commit", "-q", "--allow-empty", "-m", message, env=env)
        after = git(clone, "rev-parse", "HEAD").stdout
        assert (done.returncode == 0) == (not problems(message)), message
        assert (after != before) == (not problems(message)), message
"""
        rules = (
            f"Next, install a `commit-msg` hook in the git repository `{repo}`: the executable file `{hook}` (with a "
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
