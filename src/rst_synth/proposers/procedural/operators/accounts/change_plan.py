"""Next month's roster: HR's updated roster and group list (planted: a leaver, a team move, a new name, group
changes, a new hire in a new group, a hire whose UID is taken) planned against the host's account database by a
tool that says what to add, change and remove and which rows cannot be applied, tested on databases its tests
make up."""

from __future__ import annotations

import csv
import io
from pathlib import PurePosixPath

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.accounts.roster import COLUMNS, group_list, roster_rows
from rst_synth.proposers.procedural.operators.accounts.shipped import change_plan as shipped
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.workflow import (
    fresh_path,
    inside_git,
    plant,
    planted_dir,
    tool_path,
)
from rst_synth.proposers.procedural.shipping import render

HIRES = ("kmori", "lpetit", "mokoye", "nsato", "oruiz", "pdubois")
NEW_GROUPS = ("oncall", "security", "billing", "research")


def _csv(header: tuple[str, ...], rows: list[dict[str, str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([r[h] for h in header] for r in rows)
    return out.getvalue()


def next_roster(
    rows: list[dict[str, str]], gids: dict[str, int], ctx: StepContext
) -> tuple[list[dict[str, str]], dict[str, int]]:
    """HR's next roster and group list: every kind of change the plan has to find, once."""
    rng = ctx.rng
    rows = [dict(r) for r in rows]
    active = [r for r in rows if r["status"] == "active"]
    teams = sorted({r["team"] for r in active})
    leaver, mover, renamed, adder, kept = rng.sample(active, 5)
    leaver["status"] = "left"
    mover["team"] = rng.choice([t for t in gids if t != mover["team"] and t in teams] or [mover["team"]])
    first, _, last = renamed["full_name"].partition(" ")
    renamed["full_name"] = f"{first} {last}-Grant".strip()
    extras = [g for g in gids if g not in teams]
    spare = [g for g in extras if g not in adder["extra_groups"].split(";")]
    if spare:
        adder["extra_groups"] = ";".join(g for g in [*adder["extra_groups"].split(";"), rng.choice(spare)] if g)
    for row in active:
        if row is not adder and row is not leaver and row["extra_groups"]:
            row["extra_groups"] = ";".join(row["extra_groups"].split(";")[1:])
            break
    new_group = next(g for g in NEW_GROUPS if g not in gids)
    groups = {**gids, new_group: max(gids.values()) + 1}
    taken = {r["username"] for r in rows}
    hire, clash = [h for h in HIRES if h not in taken][:2]
    top = max(int(r["uid"]) for r in rows)
    team = rng.choice(teams)
    rows.append(
        {"username": hire, "uid": str(top + 1), "full_name": hire.capitalize() + " Newman", "team": team}
        | {"extra_groups": new_group, "status": "active"}
    )
    rows.append(
        {"username": clash, "uid": kept["uid"], "full_name": clash.capitalize() + " Clash", "team": team}
        | {"extra_groups": "", "status": "active"}
    )
    return rows, groups


@register
class AccountsChangePlan(ToolOperator):
    """The changes an updated roster asks of the host's accounts, planned by a tool before anything is applied."""

    name = "accounts-change-plan"
    kinds = (Kind.CSV,)
    once = True  # one plan tool per host: a second roster would get the same program again

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return (
            roster_rows(artifact) is not None
            and group_list(artifact, discovery) is not None
            and not inside_git(artifact.path, discovery)
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        rows = roster_rows(artifact)
        listed = group_list(artifact, ctx.discovery)
        assert rows is not None and listed is not None  # applies() checked them
        groups_artifact, gids = listed
        new_rows, new_groups = next_roster(rows, gids, ctx)
        stem = PurePosixPath(artifact.path).stem
        roster = fresh_path(ctx, planted_dir(ctx), f"{stem}_next.csv")
        groups = fresh_path(ctx, planted_dir(ctx), f"{PurePosixPath(groups_artifact.path).stem}_next.csv")
        group_rows = [{"group": g, "gid": str(n)} for g, n in new_groups.items()]
        dockerfile = plant(roster, _csv(COLUMNS, new_rows)) + plant(groups, _csv(("group", "gid"), group_rows))
        tool = tool_path(ctx, artifact, "plan")
        out = ctx.output_path(artifact, "next_plan", "json")
        seed = ctx.rng.randrange(10**6)
        code = render(shipped, ["main"])
        run = f"{q(tool)} {q(roster)} {q(groups)} /etc/passwd /etc/group > {q(out)} || test $? -eq 1"
        solution = self.tool_solution(tool, code, "sys.exit(main(sys.argv))", run, out)
        checks = [n for n in dir(shipped) if n.startswith("test_")]
        tests = render(shipped, checks, tag=ctx.tag, TOOL=tool, ROSTER=roster, GROUPS=groups, OUT=out, SEED=seed)
        instruction = (
            f"HR sent next month's roster `{roster}` and group list `{groups}` (already in the environment, in the "
            f"formats of `{artifact.path}` and `{groups_artifact.path}`). Nothing may change on the host before the "
            f"change plan is reviewed, so write a planning tool `{tool}` (an executable file with a `#!` line): "
            f"`{tool} ROSTER GROUPS PASSWD GROUPFILE` reads a roster and a group list in those CSV formats and an "
            "account database in the formats of `/etc/passwd` (`name:password:uid:gid:comment:home:shell`) and "
            "`/etc/group` (`name:password:gid:members`, members comma-separated), and prints one JSON object "
            '`{"actions": [...], "problems": [...]}` (each list in any order) of what it would take to bring the '
            "database in line:\n\n"
            '- every group of GROUPS missing from GROUPFILE: `{"action": "add_group", "group": NAME, "gid": GID}`; '
            'one present with another GID: `{"action": "set_gid", "group": NAME, "gid": GID}`;\n'
            '- every roster row with status `left` whose account exists: `{"action": "remove_user", "user": NAME}`; '
            "accounts that no roster row names are left alone;\n"
            "- a row with status `active` whose team or one of whose extra groups (`;`-separated, empty items "
            "dropped) neither GROUPS lists nor GROUPFILE has gets one problem per such group, "
            '`{"user": NAME, "problem": "unknown_group", "group": GROUP}`, and nothing else; otherwise a row whose '
            'UID belongs to another account gets `{"user": NAME, "problem": "uid_taken", "by": ACCOUNT}` and '
            "nothing else;\n"
            '- an `active` row without an account: `{"action": "add_user", "user": NAME, "uid": UID, "primary": '
            'TEAM, "groups": [EXTRA GROUPS, sorted in code-point order, no duplicates], "comment": FULL_NAME}`;\n'
            '- an `active` row with an account: `{"action": "set_uid", "user": NAME, "uid": UID}` when its UID '
            'differs; `{"action": "set_primary", "user": NAME, "group": TEAM}` when its primary group (the group '
            'of GROUPFILE with its GID) is not the team; `{"action": "set_comment", "user": NAME, "comment": '
            "FULL_NAME}` when the first comma-separated field of its comment is not the full name; and for its "
            "supplementary groups (the groups of GROUPFILE whose members name it, leaving out the team) "
            '`{"action": "add_to_group", "user": NAME, "group": GROUP}` for each extra group it lacks and '
            '`{"action": "remove_from_group", "user": NAME, "group": GROUP}` for each one not among its extra '
            "groups.\n\n"
            "UIDs and GIDs are JSON integers. The tool exits 0 when there is no problem and 1 when there is one, "
            "printing the object either way; it prints one line to standard error, nothing to standard output, and "
            "exits 2 when it does not get four files, when a file cannot be read, when a CSV file lacks one of its "
            "columns, when a UID or GID is not a whole number written in digits, when a status is neither `active` "
            "nor `left`, or when a line of PASSWD or GROUPFILE does not have seven or four `:`-separated fields. "
            f"Then plan `{roster}` and `{groups}` against the host's `/etc/passwd` and `/etc/group` and save the "
            f"output as `{out}`; apply none of it."
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile=dockerfile,
            produces=[
                Artifact(path=out, kind=Kind.JSON, end_result=True, details={"type": "object"}),
                self.executable(tool),
            ],
        )
