"""Shared folders restored without their ownership: files and folders planted below two teams' shared folders
as a restore from the old file server left them (a leaver's UID as owner, root's group, modes open to others,
a setuid script, a correct file among them), brought to a stated policy and each fault reported."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.accounts.roster import group_list, roster_rows
from rst_synth.proposers.procedural.operators.accounts.shipped import storage_repair as shipped
from rst_synth.proposers.procedural.operators.kit.families import folders_of
from rst_synth.proposers.procedural.operators.kit.workflow import fresh_path, inside_git, plant, work_root
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, render

SHARED = "/srv/shared"
"""Where the onboarding workflow keeps the teams' folders (its instruction names it)."""


def _entries(team: str, gid: int, member: int, leaver: int, first: bool) -> dict[str, tuple[int, int, int, str | None]]:
    """What the restore left in one team's folder: one entry of each fault, and one that is right already."""
    base = f"{SHARED}/{team}"
    if first:
        return {
            f"{base}/handover": (0, 0, 0o755, None),
            f"{base}/handover/notes.txt": (leaver, 0, 0o644, f"Handover notes of the {team} team.\n"),
            f"{base}/figures.csv": (member, gid, 0o666, "month,total\n2024-01,1200\n"),
            f"{base}/plan.txt": (member, gid, 0o660, "Plan: nothing to fix here.\n"),
        }
    return {
        f"{base}/tools": (member, gid, 0o2750, None),
        f"{base}/tools/sync.sh": (0, 0, 0o4755, "#!/bin/sh\necho sync\n"),
        f"{base}/draft.txt": (leaver, gid, 0o600, f"Draft of the {team} team.\n"),
    }


@register
class AccountsStorageRepair(Operator):
    """The teams' shared folders, restored from a backup that lost ownership and modes, repaired by a policy."""

    name = "accounts-storage-repair"
    purpose = Purpose.REPAIR
    kinds = (Kind.CSV,)
    tools = ("python3",)
    weight = 3.0
    once = True  # one host, one set of shared folders

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        rows = roster_rows(artifact)
        return (
            rows is not None
            and group_list(artifact, discovery) is not None
            and len({r["team"] for r in rows if r["status"] == "active"}) >= 2
            and not inside_git(artifact.path, discovery)
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        rows, listed = roster_rows(artifact), group_list(artifact, ctx.discovery)
        assert rows is not None and listed is not None  # applies() checked them
        groups_artifact, gids = listed
        active = [r for r in rows if r["status"] == "active"]
        left = sorted(int(r["uid"]) for r in rows if r["status"] == "left")
        leaver = left[0] if left else max(int(r["uid"]) for r in rows) + 100
        teams = sorted(ctx.rng.sample(sorted({r["team"] for r in active}), 2))
        planted: dict[str, tuple[int, int, int, str | None]] = {}
        for k, team in enumerate(teams):
            member = int(ctx.rng.choice([r for r in active if r["team"] == team])["uid"])
            planted |= _entries(team, gids[team], member, leaver, k == 0)
        folders = [p for p, e in planted.items() if e[3] is None]
        files = "".join(plant(p, e[3]) for p, e in planted.items() if e[3] is not None)
        owners = " && ".join(f"chown {e[0]}:{e[1]} {q(p)} && chmod {e[2]:04o} {q(p)}" for p, e in planted.items())
        dockerfile = f"RUN mkdir -p {' '.join(map(q, folders))}\n{files}RUN {owners}\n"
        report = fresh_path(ctx, f"{work_root(ctx.discovery)}/audit", "shared_storage_repairs.csv")
        params = {"SHARED": SHARED, "ROSTER": artifact.path, "GROUPS": groups_artifact.path, "REPORT": report}
        code = render(shipped, ["repair_storage"], **params)
        solution = f"{folders_of(report)}\n{python_script(code, 'repair_storage()')}"
        checks = [n for n in dir(shipped) if n.startswith("test_")]
        tests = render(shipped, checks, tag=ctx.tag, PLANTED=planted, **params)
        named = ", ".join(f"`{SHARED}/{team}`" for team in teams)
        restored = ", ".join(f"`{path}`" for path in sorted(planted))  # the entries the tests check, by path
        instruction = (
            f"The teams' shared folders were restored from the old file server's backup, which lost their "
            f"ownership and modes: what it restored is below {named} ({restored}). Repair every folder and file below "
            f"`{SHARED}/<team>` for every team with an `active` member in `{artifact.path}` (the entries inside "
            "the team folder, not the team folder itself; every entry there is a folder or a regular file) so "
            f"that: its group is the team's group (its GID in `{groups_artifact.path}`); its owner stays, unless "
            "no account has that UID (a leaver's files), in which case it becomes `root`; a folder's mode is "
            "exactly `2770`; a regular file keeps its owner's permission bits, its group gets read and write, "
            "and execute exactly when the owner has execute, others get nothing, and setuid, setgid and sticky "
            "bits are cleared (`0644` becomes `0660`, `4755` becomes `0770`). Delete, move or edit nothing, and "
            f"leave every entry that already follows these rules as it is. Write the report `{report}`: a CSV "
            "file with the header `path,problem` and one row for each fault found before the repair, `PATH` the "
            "entry's absolute path and `problem` one of `owner` (no account has its UID), `group` (not the team's "
            "group) and `mode` (other permission bits than the rules give), an entry with several faults "
            "getting a row for each; rows sorted by path, then problem, in code-point order."
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile=dockerfile,
            # The repaired entries are end results too: a later step writing beside one would break the policy.
            produces=[
                csv_output(report, ["path", "problem"], [], end_result=True),
                *(Artifact(path=p, kind=Kind.TEXT, end_result=True) for p, e in planted.items() if e[3] is not None),
            ],
        )
