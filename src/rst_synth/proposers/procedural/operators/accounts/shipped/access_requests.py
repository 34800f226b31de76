"""What `accounts-access-requests` ships: the reconciliation (`reconcile_access`: every supplementary group
membership of the roster's active people, as `/etc/group` lists it, checked against the latest decision of the
ticket system's access requests and the team leads, each approved request the host never granted reported, and
a count per group) and the tests, which compare the report and the summary with what the step worked out from
what it planted, and the memberships with the host's as the onboarding left them. The constants are the step's
parameters: `shipping.render` sets them."""

from __future__ import annotations

import csv
import json
import pathlib

ROSTER = "/app/onboarding/roster.csv"
REQUESTS = "/app/incoming/r3s1/access_requests.csv"
LEADS = "/app/incoming/r3s1/leads.csv"
ADMIN = "ops"
GROUP = "/etc/group"
REPORT = "/app/audit/access_reconciliation.csv"
SUMMARY = "/app/audit/access_summary.json"
HEADER = ["username", "group", "status", "ticket"]
WANT: list[list[str]] = [["amoreau", "vpn", "backed", "ACC-1001"]]
"""The report's rows (without its header), worked out when the step was built."""
TOTALS: dict[str, dict[str, int]] = {"vpn": {"backed": 1, "not_backed": 0, "not_granted": 0}}
"""The summary, worked out when the step was built."""
HOST: list[list[str]] = [["amoreau", "vpn"]]
"""The memberships (username, group) of the roster's active people as the onboarding left them."""


def read_rows(path: str) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def memberships(active: set[str]) -> set[tuple[str, str]]:
    """(username, group) for each active person that a group's member list in /etc/group names."""
    found = set()
    for line in pathlib.Path(GROUP).read_text(encoding="utf-8").splitlines():
        fields = line.split(":")
        if len(fields) >= 4:
            found |= {(m, fields[0]) for m in fields[3].split(",") if m in active}
    return found


def decision_order(ticket: dict[str, str]) -> tuple[str, int]:
    """Later day first, and on one day the higher ticket number (`ACC-998` is older than `ACC-1003`)."""
    return ticket["decided"], int(ticket["ticket"].rsplit("-", 1)[1])


def latest_decisions(tickets: list[dict[str, str]]) -> dict[tuple[str, str], dict[str, str]]:
    """The decision that counts for each (username, group): a pending ticket decides nothing."""
    latest: dict[tuple[str, str], dict[str, str]] = {}
    for ticket in tickets:
        if ticket["status"] == "pending":
            continue
        key = (ticket["username"], ticket["group"])
        if key not in latest or decision_order(ticket) > decision_order(latest[key]):
            latest[key] = ticket
    return latest


def verdict(ticket: dict[str, str], team: str, leads: dict[str, str], admins: set[str]) -> str:
    if ticket["status"] in ("rejected", "revoked"):
        return ticket["status"]
    approver = ticket["approved_by"]
    if approver in (ticket["username"], ticket["requested_by"]):
        return "self_approved"
    if approver != leads.get(team) and approver not in admins:
        return "wrong_approver"
    return "backed"


def reconcile_access() -> None:
    people = {r["username"]: r for r in read_rows(ROSTER) if r["status"] == "active"}
    admins = {u for u, r in people.items() if ADMIN in r["extra_groups"].split(";")}
    leads = {r["team"]: r["lead"] for r in read_rows(LEADS)}
    latest = latest_decisions(read_rows(REQUESTS))
    host = memberships(set(people))
    rows = []
    for user, group in host:
        ticket = latest.get((user, group))
        status = verdict(ticket, people[user]["team"], leads, admins) if ticket else "unbacked"
        rows.append([user, group, status, ticket["ticket"] if ticket else ""])
    for (user, group), ticket in latest.items():
        if user in people and (user, group) not in host:
            if verdict(ticket, people[user]["team"], leads, admins) == "backed":
                rows.append([user, group, "not_granted", ticket["ticket"]])
    rows.sort(key=lambda row: (row[0], row[1]))
    totals: dict[str, dict[str, int]] = {}
    for _, group, status, _ in rows:
        counts = totals.setdefault(group, {"backed": 0, "not_backed": 0, "not_granted": 0})
        counts[status if status in ("backed", "not_granted") else "not_backed"] += 1
    report = pathlib.Path(REPORT)
    report.parent.mkdir(parents=True, exist_ok=True)
    with report.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows([HEADER, *rows])
    pathlib.Path(SUMMARY).write_text(json.dumps(totals, indent=2) + "\n", encoding="utf-8")


def test_memberships_left_as_they_were() -> None:
    people = {r["username"] for r in read_rows(ROSTER) if r["status"] == "active"}
    assert sorted([m, g] for m, g in memberships(people)) == HOST  # an audit changes no membership


def test_reconciliation_report() -> None:
    with open(REPORT, newline="", encoding="utf-8") as f:
        rows = [row for row in csv.reader(f) if row]
    assert rows[:1] == [HEADER]
    assert rows[1:] == WANT


def test_summary_per_group() -> None:
    got = json.loads(pathlib.Path(SUMMARY).read_text(encoding="utf-8"))
    assert isinstance(got, dict) and got == TOTALS
