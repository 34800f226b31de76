"""Sudo rights drifted from the roster: drop-in files planted below `/etc/sudoers.d` as the old host left them
(the admin group's rule, an admin's rule without a password, a leaver's rule, a team's and a non-admin's rules,
a world-readable file) reviewed against the roster's admin group by stated rules, every finding reported."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, register
from rst_synth.proposers.procedural.operators.accounts.roster import group_list, roster_rows
from rst_synth.proposers.procedural.operators.accounts.shipped import sudo_review as shipped
from rst_synth.proposers.procedural.operators.kit.families import folders_of
from rst_synth.proposers.procedural.operators.kit.workflow import fresh_path, inside_git, plant, work_root
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, render

SUDOERS = "/etc/sudoers.d"
HEADER = ["file", "principal", "problem"]


def _outsiders(member: dict[str, str], group: str, active: list[dict[str, str]]) -> list[dict[str, str]]:
    """The active non-members of `group` in another team than `member`'s."""
    return [r for r in active if group not in r["extra_groups"].split(";") and r["team"] != member["team"]]


def _members(group: str, rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """The active members of `group` that have an active non-member in another team."""
    active = [r for r in rows if r["status"] == "active"]
    inside = [r for r in active if group in r["extra_groups"].split(";")]
    return [r for r in inside if _outsiders(r, group, active)]


def _admin_groups(rows: list[dict[str, str]], gids: dict[str, int]) -> list[str]:
    """Non-team groups that can be the admin group: one with an active member, an outsider in another team."""
    teams = {r["team"] for r in rows}
    return [g for g in sorted(gids) if g not in teams and _members(g, rows)]


@register
class AccountsSudoReview(Operator):
    """The host's sudo drop-ins reviewed against the roster's admin group: only its members keep rights."""

    name = "accounts-sudo-review"
    purpose = Purpose.REPAIR
    kinds = (Kind.CSV,)
    tools = ("python3",)
    weight = 3.0
    once = True  # one host, one sudoers folder

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        rows, listed = roster_rows(artifact), group_list(artifact, discovery)
        return (
            rows is not None
            and listed is not None
            and bool(_admin_groups(rows, listed[1]))
            and not inside_git(artifact.path, discovery)
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        rows, listed = roster_rows(artifact), group_list(artifact, ctx.discovery)
        assert rows is not None and listed is not None  # applies() checked them
        rng = ctx.rng
        admin = rng.choice(_admin_groups(rows, listed[1]))
        active = [r for r in rows if r["status"] == "active"]
        member = rng.choice(_members(admin, rows))
        outsider = rng.choice(_outsiders(member, admin, active))
        gone = sorted(r["username"] for r in rows if r["status"] == "left") or ["former"]
        leaver = rng.choice(gone)
        team = outsider["team"]
        base = SUDOERS
        files: dict[str, tuple[str, int, list[str], list[str], list[list[str]]]] = {
            f"{base}/10-admins": (
                f"# The admins.\n%{admin} ALL=(ALL:ALL) ALL\n",
                0o440,
                [f"%{admin} ALL=(ALL:ALL) ALL"],
                ["# The admins."],
                [],
            ),
            f"{base}/20-{member['username']}": (
                f"Defaults:{member['username']} timestamp_timeout=5\n{member['username']} ALL=(ALL)   NOPASSWD: ALL\n",
                0o644,
                [f"{member['username']} ALL=(ALL) ALL"],
                [f"Defaults:{member['username']} timestamp_timeout=5"],
                [[member["username"], "nopasswd"], ["", "mode"]],
            ),
            f"{base}/30-{leaver}": (f"{leaver} ALL=(ALL) ALL\n", 0o440, [], [], [[leaver, "not_active"]]),
            f"{base}/40-{team}": (
                f"# {team} on call\n%{team} ALL=(root) /usr/bin/systemctl restart cron\n"
                f"{outsider['username']} ALL=(ALL) /usr/bin/apt-get\n",
                0o440,
                [],
                [f"# {team} on call"],
                [[f"%{team}", "not_admin"], [outsider["username"], "not_admin"]],
            ),
        }
        want = sorted([path, *row] for path, f in files.items() for row in f[4])
        report = fresh_path(ctx, f"{work_root(ctx.discovery)}/audit", "sudo_review.csv")
        dockerfile = "".join(plant(p, f[0], f"{f[1]:04o}") for p, f in files.items())
        params = {"ROSTER": artifact.path, "SUDOERS": SUDOERS, "ADMIN": admin, "REPORT": report}
        code = render(shipped, ["review_sudo"], **params)
        solution = f"{folders_of(report)}\n{python_script(code, 'review_sudo()')}"
        checks = [n for n in dir(shipped) if n.startswith("test_")]
        kept = {p: f[2] for p, f in files.items()}
        texts = {p: f[3] for p, f in files.items()}
        tests = render(shipped, checks, tag=ctx.tag, KEPT=kept, TEXTS=texts, WANT=want, **params)
        planted = ", ".join(f"`{p}`" for p in files)
        instruction = (
            f"Before the access audit, review the sudo rules the old host left in `{SUDOERS}` ({planted}). Only "
            f"the admin group `{admin}` may hold sudo rights: in every file of `{SUDOERS}`, a rule line (a line "
            "that is neither empty, nor a comment starting with `#`, nor a `Defaults` line) whose first word is "
            f"`%{admin}` or the username of an `active` row of `{artifact.path}` whose `extra_groups` "
            f"(`;`-separated) include `{admin}` stays; every other rule line is deleted. A rule line that stays "
            "loses its `NOPASSWD:` tag (the word `NOPASSWD:` removed, the rest of the rule kept). Comments and "
            "`Defaults` lines stay, and so does every file, even one left with no rule; every file ends up owned "
            f"by `root:root` with mode `0440`. Write the report `{report}`: a CSV file with the header "
            f"`{','.join(HEADER)}` and one row per finding, `file` the file's absolute path: for a deleted rule "
            "`principal` is its first word and `problem` is `not_active` when it names a user without an `active` "
            "roster row and `not_admin` otherwise; for a `NOPASSWD:` tag removed, the rule's first word and "
            "`nopasswd`; for a file that was not `root:root` `0440`, an empty `principal` and `mode`. Rows sorted "
            "by file, then principal, then problem, in code-point order."
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile=dockerfile,
            produces=[csv_output(report, HEADER, [], end_result=True)],
        )
