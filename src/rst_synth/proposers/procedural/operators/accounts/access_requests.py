"""The access audit: every supplementary group membership the onboarding gave the roster's people must be backed by
an approved request. Planted: the ticket system's export of access requests (approvals by a team's lead and by
the admin group, a self-approval, one by a lead of another team, a later revocation, a later rejection of a ticket
filed earlier, a same-day tie that only the ticket number settles, pending tickets, a membership nobody asked
for, an approved request the host never granted, a leaver's request) and the team leads; the memberships as
`/etc/group` lists them are reconciled with the requests, nothing on the host changed."""

from __future__ import annotations

import csv
import io
import random
from datetime import date, timedelta

from rst_synth.proposers.artifacts import Artifact, Kind, csv_output
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, register
from rst_synth.proposers.procedural.operators.accounts.roster import group_list, roster_rows
from rst_synth.proposers.procedural.operators.accounts.shipped import access_requests as shipped
from rst_synth.proposers.procedural.operators.kit.families import folders_of
from rst_synth.proposers.procedural.operators.kit.workflow import fresh_path, inside_git, plant, planted_dir, work_root
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, render

EXPORT = ("ticket", "username", "group", "requested_by", "approved_by", "status", "decided")
FIRST_DAY = date(2024, 1, 8)
CASES = ("wrong", "self", "revoked", "tie", "none", "lead", "rejected_later", "requester", "pending_only")
"""What the tickets say of each membership, in the order memberships are handed out; the rest are plainly backed.
The first six need a membership each (`applies` asks for six)."""
Row = dict[str, str]


def _active(rows: list[Row]) -> list[Row]:
    return [r for r in rows if r["status"] == "active"]


def _host(rows: list[Row], gids: dict[str, int]) -> list[tuple[str, str]]:
    """(username, group) of each supplementary group the onboarding gave an active person."""
    return sorted(
        {(r["username"], g) for r in _active(rows) for g in r["extra_groups"].split(";") if g in gids},
    )


def _outsiders(user: str, admins: set[str], rows: list[Row]) -> list[str]:
    """Who cannot approve `user`'s requests: active, not an admin, in another team (so not its lead)."""
    team = next(r["team"] for r in rows if r["username"] == user)
    return [r["username"] for r in _active(rows) if r["username"] not in admins and r["team"] != team]


def _admins(group: str, rows: list[Row]) -> set[str]:
    return {r["username"] for r in _active(rows) if group in r["extra_groups"].split(";")}


def _admin_groups(rows: list[Row], gids: dict[str, int]) -> list[str]:
    """Non-team groups that can be the admin group: two active members (so everyone has an admin approver
    besides themselves) and a membership whose user has an outsider to approve it wrongly."""
    teams = {r["team"] for r in rows}
    host = _host(rows, gids)
    return [
        g
        for g in sorted(gids)
        if g not in teams and len(_admins(g, rows)) >= 2 and any(_outsiders(u, _admins(g, rows), rows) for u, _ in host)
    ]


def _ungranted(rows: list[Row], gids: dict[str, int]) -> list[tuple[str, str]]:
    """(username, group) of a non-team group an active person is not in: what a request could ask for."""
    teams = {r["team"] for r in rows}
    held = set(_host(rows, gids))
    return [
        (r["username"], g)
        for r in _active(rows)
        for g in sorted(gids)
        if g not in teams and (r["username"], g) not in held
    ]


def _day(n: int) -> str:
    return (FIRST_DAY + timedelta(days=n)).isoformat()


def _export(tickets: list[Row]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(EXPORT)
    writer.writerows([t[c] for c in EXPORT] for t in tickets)
    return out.getvalue()


class _Plan:
    """The requests as they are filed, each with its decision, for a roster and its admin group and leads."""

    def __init__(self, rows: list[Row], admins: set[str], leads: dict[str, str], rng: random.Random) -> None:
        self.admins, self.leads, self.rng = admins, leads, rng
        self.team_of = {r["username"]: r["team"] for r in rows}
        self.filed: list[tuple[int, Row]] = []
        self.pivot: Row | None = None

    def add(self, user: str, group: str, by: str, approver: str, status: str, filed: int, decided: int = 0) -> Row:
        pending = status == "pending"
        row = {"username": user, "group": group, "requested_by": by, "approved_by": "" if pending else approver}
        row |= {"status": status, "decided": "" if pending else _day(decided)}
        self.filed.append((filed, row))
        return row

    def approver(self, user: str) -> str:
        """Someone who may approve `user`'s request: the team's lead or an admin, never the user."""
        return self.rng.choice(sorted(({self.leads.get(self.team_of[user], "")} | self.admins) - {user, ""}))

    def membership(self, case: str, user: str, group: str, outsiders: list[str]) -> tuple[str, Row | None]:
        """The tickets of one membership the host has, by its case: the report's status and ticket."""
        b = self.rng.randrange(200)

        def add(by: str, approver: str, status: str, filed: int, decided: int = 0) -> Row:
            return self.add(user, group, by, approver, status, filed, decided)

        if case == "wrong":
            return "wrong_approver", add(user, self.rng.choice(outsiders), "approved", b, b + 2)
        if case == "self":
            return "self_approved", add(user, user, "approved", b, b + 1)
        if case == "revoked":
            add(user, self.approver(user), "approved", b, b + 2)
            return "revoked", add(user, self.rng.choice(sorted(self.admins - {user})), "revoked", b + 40, b + 41)
        if case == "tie":
            add(user, self.approver(user), "rejected", b, b + 30)  # filed long before, decided the same day
            self.pivot = add(user, self.approver(user), "approved", b + 25, b + 30)
            return "backed", self.pivot
        if case == "none":
            return "unbacked", None
        if case == "lead":
            lead = self.leads[self.team_of[user]]
            ticket = add(user, lead if lead != user else self.approver(user), "approved", b, b + 3)
            add(user, "", "pending", b + 50)  # asked again later: no decision
            return "backed", ticket
        if case == "rejected_later":
            add(user, self.approver(user), "approved", b + 5, b + 6)
            return "rejected", add(user, self.approver(user), "rejected", b, b + 20)  # filed first, decided last
        if case == "requester":
            asker = self.approver(user)  # asked for the user, then approved it: no second pair of eyes
            return "self_approved", add(asker, asker, "approved", b, b + 2)
        if case == "pending_only":
            add(user, "", "pending", b)
            return "unbacked", None
        return "backed", add(user, self.approver(user), "approved", b, b + 4)

    def numbered(self) -> list[Row]:
        """Numbered in the order filed so that the tie's approval is `ACC-1000`: the tickets filed before it have
        three digits, and a text comparison of the ticket would put them after it."""
        ordered = [row for _, row in sorted(self.filed, key=lambda f: f[0])]  # stable: same day, order added
        start = 1000 - next(i for i, row in enumerate(ordered) if row is self.pivot)
        for i, row in enumerate(ordered):
            row["ticket"] = f"ACC-{start + i}"
        return ordered


@register
class AccountsAccessRequests(Operator):
    """The host's group memberships reconciled with the access requests that should back them."""

    name = "accounts-access-requests"
    purpose = Purpose.RECONCILE
    kinds = (Kind.CSV,)
    tools = ("python3",)
    weight = 3.0
    once = True  # one host, one ticket export

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        rows, listed = roster_rows(artifact), group_list(artifact, discovery)
        return (
            rows is not None
            and listed is not None
            and len(_host(rows, listed[1])) >= 6
            and bool(_admin_groups(rows, listed[1]))
            and bool(_ungranted(rows, listed[1]))
            and not inside_git(artifact.path, discovery)
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        rows, listed = roster_rows(artifact), group_list(artifact, ctx.discovery)
        assert rows is not None and listed is not None  # applies() checked them
        gids, rng = listed[1], ctx.rng
        admin = rng.choice(_admin_groups(rows, gids))
        admins = _admins(admin, rows)
        teams = sorted({r["team"] for r in _active(rows)})
        leads = {t: rng.choice(sorted(r["username"] for r in _active(rows) if r["team"] == t)) for t in teams}
        plan = _Plan(rows, admins, leads, rng)
        host = _host(rows, gids)
        pool = list(host)
        rng.shuffle(pool)

        def fits(case: str, user: str) -> bool:
            """Whether a membership of `user` can show `case`: a wrong approver needs an outsider, and a lead's
            approval is one of someone else's."""
            if case == "wrong":
                return bool(_outsiders(user, admins, rows))
            return case != "lead" or leads[plan.team_of[user]] != user

        cases: dict[tuple[str, str], str] = {}
        for case in CASES[: len(pool)]:
            picked = next((p for p in pool if fits(case, p[0])), pool[0])  # `applies` asked for an outsider
            cases[picked] = case
            pool.remove(picked)
        found = [
            (u, g, *plan.membership(cases.get((u, g), "plain"), u, g, _outsiders(u, admins, rows))) for u, g in host
        ]
        asked = _ungranted(rows, gids)
        user, group = granted = rng.choice(asked)
        found.append(
            (user, group, "not_granted", plan.add(user, group, user, plan.approver(user), "approved", 90, 210))
        )
        others = [p for p in asked if p != granted]
        if others:  # approved by the user alone and never granted: nothing to report
            user, group = rng.choice(others)
            plan.add(user, group, user, user, "approved", rng.randrange(200), 215)
        gone = [r for r in rows if r["status"] == "left"]
        if gone:  # a leaver's approved request: no account, nothing to audit
            leaver = rng.choice(gone)
            group = rng.choice(sorted(g for g in gids if g not in plan.team_of.values()))
            by = leads.get(leaver["team"]) or rng.choice(sorted(admins))
            plan.add(leaver["username"], group, leaver["username"], by, "approved", rng.randrange(200), 205)
        export = _export(plan.numbered())
        want = sorted([u, g, s, t["ticket"] if t else ""] for u, g, s, t in found)
        totals: dict[str, dict[str, int]] = {}
        for _, group, status, _ in want:
            counts = totals.setdefault(group, {"backed": 0, "not_backed": 0, "not_granted": 0})
            counts[status if status in ("backed", "not_granted") else "not_backed"] += 1
        requests = fresh_path(ctx, planted_dir(ctx), "access_requests.csv")
        leads_path = fresh_path(ctx, planted_dir(ctx), "leads.csv")
        audit = f"{work_root(ctx.discovery)}/audit"
        report = fresh_path(ctx, audit, "access_reconciliation.csv")
        summary = fresh_path(ctx, audit, "access_summary.json")
        lead_rows = "".join(f"{t},{leads[t]}\n" for t in teams)
        dockerfile = plant(requests, export) + plant(leads_path, "team,lead\n" + lead_rows)
        params = {"ROSTER": artifact.path, "REQUESTS": requests, "LEADS": leads_path, "ADMIN": admin}
        params |= {"REPORT": report, "SUMMARY": summary}
        code = render(shipped, ["reconcile_access"], **params)
        solution = f"{folders_of(report, summary)}\n{python_script(code, 'reconcile_access()')}"
        checks = [n for n in dir(shipped) if n.startswith("test_")]
        held = [list(p) for p in host]
        tests = render(shipped, checks, tag=ctx.tag, WANT=want, TOTALS=totals, HOST=held, **params)
        instruction = (
            "The access audit needs every supplementary group membership of the roster's people backed by an "
            f"approved request. The ticket system's export is `{requests}` (`{','.join(EXPORT)}`: one row per "
            "ticket asking that `username` be put in `group`; tickets are numbered `ACC-` and a number; `status` "
            "is `approved`, `rejected`, `revoked` or `pending`; `approved_by` is who decided and `decided` the "
            "day, as `YYYY-MM-DD`, both empty for a `pending` ticket), and the team leads are listed in "
            f"`{leads_path}` (`team,lead`). A membership is a username of an `active` row of `{artifact.path}` "
            "that the member list (the fourth `:`-separated field, comma-separated) of a group's line in "
            "`/etc/group` names: audit the memberships exactly as the host has them and change none of them. "
            "For each (username, group) only the latest decision counts: among its tickets that are not "
            "`pending`, the one with the latest `decided` day, and of those decided on the same day the one "
            "with the higher ticket number (the number after `ACC-`, compared as a number); a `pending` ticket "
            "decides nothing. An `approved` decision is `self_approved` when its `approved_by` is its `username` "
            "or its `requested_by`; otherwise it is `backed` when `approved_by` is the lead of the username's team "
            f"(the `team` of its roster row, looked up in `{leads_path}`) or the username of an `active` roster "
            f"row whose `extra_groups` (`;`-separated) include the admin group `{admin}`, and `wrong_approver` "
            f"when it is anyone else. Write `{report}`: a CSV file with the header `{','.join(shipped.HEADER)}` "
            "and one row per membership, its `status` the latest decision's verdict (`backed`, `self_approved`, "
            "`wrong_approver`, or `rejected` or `revoked` as that ticket's `status` says) or `unbacked` when "
            "there is no decision, and its `ticket` that decision's ticket (empty when there is none); and one "
            "row with the status `not_granted` and the ticket for every (username, group) of a username with an "
            "`active` roster row that is no membership but whose latest decision is `backed` by these rules. "
            "Tickets of anyone without an `active` roster row count for nothing. Rows are sorted by username, "
            f"then group, in code-point order. Write `{summary}`: a JSON object with one key per group that "
            'appears in the report, whose value is an object `{"backed": B, "not_backed": N, "not_granted": G}` '
            "of integers: how many of that group's rows have the status `backed`, how many have a status other "
            "than `backed` and `not_granted`, and how many have `not_granted`."
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile=dockerfile,
            produces=[
                csv_output(report, shipped.HEADER, [], end_result=True),
                Artifact(path=summary, kind=Kind.JSON, end_result=True, details={"type": "object"}),
            ],
        )
