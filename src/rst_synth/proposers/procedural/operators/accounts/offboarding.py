"""Contractors leaving: accounts the HR roster never named (planted: three contractors with password hashes,
supplementary groups of the group list and files below two teams' shared folders) and the vendor's list of
leavers with each one's last day and handover owner; the leavers whose day has come are locked, taken out of
their groups, their files handed over (to root when the named owner has no account), and a report written. One
leaver's day is still to come, so it must be left alone."""

from __future__ import annotations

import csv
import io

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.accounts.roster import group_list, roster_rows
from rst_synth.proposers.procedural.operators.accounts.shipped import offboarding as shipped
from rst_synth.proposers.procedural.operators.accounts.storage_repair import SHARED
from rst_synth.proposers.procedural.operators.kit.families import folders_of
from rst_synth.proposers.procedural.operators.kit.workflow import (
    fresh_path,
    inside_git,
    plant,
    planted_dir,
    work_root,
)
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, render

CONTRACTORS = ("ext_olsen", "ext_varga", "ext_quinn")
TODAY = "2024-06-28"
HEADER = ["username", "status", "handed_to", "entries"]
Entry = tuple[int, int, int, str | None]


def _leavers_csv(rows: list[tuple[str, str, str]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([("username", "last_day", "handover_to"), *rows])
    return out.getvalue()


@register
class AccountsOffboarding(Operator):
    """Contractors' accounts that the roster never named, offboarded by the leavers' list: locked, out of their
    groups, their shared files handed over."""

    name = "accounts-offboarding"
    purpose = Purpose.RECONCILE
    kinds = (Kind.CSV,)
    tools = ("python3",)
    weight = 3.0
    once = True  # plants accounts on the host: a second list would offboard the same contractors again

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        rows = roster_rows(artifact)
        listed = group_list(artifact, discovery)
        return (
            rows is not None
            and listed is not None
            and len({r["team"] for r in rows if r["status"] == "active"}) >= 2
            and len([g for g in listed[1] if g not in {r["team"] for r in rows}]) >= 1
            and not set(CONTRACTORS) & {r["username"] for r in rows}
            and not inside_git(artifact.path, discovery)
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        rows, listed = roster_rows(artifact), group_list(artifact, ctx.discovery)
        assert rows is not None and listed is not None  # applies() checked them
        groups_artifact, gids = listed
        rng = ctx.rng
        active = [r for r in rows if r["status"] == "active"]
        teams = sorted(rng.sample(sorted({r["team"] for r in active}), 2))
        extras = sorted(g for g in gids if g not in {r["team"] for r in rows})
        top = max(int(r["uid"]) for r in rows) + 500
        hashes = ["$6$" + rng.randbytes(4).hex() + "$" + rng.randbytes(16).hex() for _ in CONTRACTORS]
        accounts = {
            name: (top + k, hashes[k], sorted(rng.sample(extras, min(len(extras), 1 + k % 2))))
            for k, name in enumerate(CONTRACTORS)
        }
        gone = [r["username"] for r in rows if r["status"] == "left"] or ["former"]  # no account: files to root
        heir, keeper = rng.sample(active, 2)
        due_a, due_b, pending = CONTRACTORS
        leavers = [
            (due_a, "2024-06-14", heir["username"]),
            (due_b, TODAY, rng.choice(gone)),
            (pending, "2024-07-31", keeper["username"]),
        ]
        uid = {name: a[0] for name, a in accounts.items()}
        one, two = teams
        planted: dict[str, Entry] = {
            f"{SHARED}/{one}/{due_a}": (uid[due_a], gids[one], 0o2770, None),
            f"{SHARED}/{one}/{due_a}/handover.txt": (uid[due_a], gids[one], 0o660, f"Handover of {due_a}.\n"),
            f"{SHARED}/{two}/{due_a}_figures.csv": (uid[due_a], gids[two], 0o660, "month,total\n2024-05,310\n"),
            f"{SHARED}/{two}/{due_b}_notes.txt": (uid[due_b], gids[two], 0o660, f"Notes of {due_b}.\n"),
            f"{SHARED}/{one}/{pending}_draft.txt": (uid[pending], gids[one], 0o660, "Draft, still in work.\n"),
            f"{SHARED}/{two}/team_plan.txt": (int(keeper["uid"]), gids[two], 0o660, "Plan of the team.\n"),
        }
        handed = {p: {uid[due_a]: int(heir["uid"]), uid[due_b]: 0}.get(e[0], e[0]) for p, e in planted.items()}
        want = sorted(
            [
                [due_a, "offboarded", heir["username"], "3"],
                [due_b, "offboarded", "root", "1"],
                [pending, "pending", "", "0"],
            ]
        )
        listing = fresh_path(ctx, planted_dir(ctx), "leavers.csv")
        report = fresh_path(ctx, f"{work_root(ctx.discovery)}/audit", "offboarding.csv")
        needed = sorted({g for a in accounts.values() for g in a[2]})
        made = " && ".join(f"(getent group {g} >/dev/null || groupadd -g {gids[g]} {g})" for g in needed)
        users = " && ".join(
            f"useradd -M -u {u} -g users -G {','.join(g)} -c {q(name + ' (contractor)')} -s /bin/bash {name} "
            f"&& usermod -p {q(h)} {name}"
            for name, (u, h, g) in accounts.items()
        )
        folders = [p for p, e in planted.items() if e[3] is None]
        files = "".join(plant(p, e[3]) for p, e in planted.items() if e[3] is not None)
        owners = " && ".join(f"chown {e[0]}:{e[1]} {q(p)} && chmod {e[2]:04o} {q(p)}" for p, e in planted.items())
        dockerfile = (
            f"RUN {made} && {users}\n{plant(listing, _leavers_csv(leavers))}"
            f"RUN mkdir -p {' '.join(map(q, folders))}\n{files}RUN {owners}\n"
        )
        params = {"LEAVERS": listing, "REPORT": report, "SHARED": SHARED, "TODAY": TODAY}
        code = render(shipped, ["offboard"], **params)
        solution = f"{folders_of(report)}\n{python_script(code, 'offboard()')}"
        checks = [n for n in dir(shipped) if n.startswith("test_")]
        tests = render(
            shipped, checks, tag=ctx.tag, PLANTED_ACCOUNTS=accounts, PLANTED=planted, WANT=want, HANDED=handed, **params
        )
        instruction = (
            f"Three contractors ({', '.join(f'`{c}`' for c in CONTRACTORS)}) have local accounts that "
            f"`{artifact.path}` never named, with files below `{SHARED}/{one}` and `{SHARED}/{two}`. Their vendor "
            f"sent `{listing}` (`username,last_day,handover_to`, dates as `YYYY-MM-DD`): today is {TODAY}. "
            "Offboard every listed account whose last day is today or earlier: lock its password (put `!` in front "
            "of the hash in its `/etc/shadow` entry and keep the hash, as `usermod -L` does), set its login shell "
            f"to `{shipped.NOLOGIN}`, take it out of every supplementary group (no member list of `/etc/group` "
            "names it; its primary group stays), and hand every folder and file below "
            f"`{SHARED}` that it owns over to its `handover_to` account, or to `root` when no account of "
            "`/etc/passwd` has that name or that account is itself being offboarded; a handed-over entry keeps its "
            "group, its mode and its content. Keep the accounts (do not delete them or their UIDs), and leave a "
            "listed account whose last day is still to come, every other account and every other entry exactly as "
            f"they are. Write the report `{report}`: a CSV file with the header `{','.join(HEADER)}` and one row "
            "per listed account, sorted by username in code-point order: `status` is `offboarded` or `pending`, "
            "`handed_to` the account that got its entries (empty when pending) and `entries` how many folders and "
            "files were handed over (`0` when pending). The entries below those two folders are: "
            + ", ".join(f"`{path}`" for path in sorted(planted))
            + "."
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile=dockerfile,
            produces=[
                csv_output(report, HEADER, ["entries"], 3, end_result=True),
                *(Artifact(path=p, kind=Kind.TEXT, end_result=True) for p, e in planted.items() if e[3] is not None),
            ],
        )
