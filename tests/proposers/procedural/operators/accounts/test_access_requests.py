"""accounts-access-requests: where it applies, the decision rules on hand-made tickets, a deterministic step whose
planted export holds each kind of ticket (a same-day tie that only the ticket number settles, a rejection decided
after a later-filed approval, a lead's request approved by that lead, a leaver's request), its generated tests
passing on its own reconciliation of the onboarded host's /etc/group and failing on reconciliations that ignore the
latest decision, accept a self-approval, compare tickets as text or leave out the approved requests never granted;
and a child accepted against the onboarding seed."""

from __future__ import annotations

import base64
import csv
import io
import json
import random
import shutil
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.accounts.shipped import access_requests as shipped
from tests.proposers.local_steps import failed, outcomes
from tests.proposers.procedural.operators.accounts.test_change_plan import (
    GROUPS,
    ROSTER,
    SEED,
    artifact,
    discovery,
    files,
)
from tests.support.operators import assert_accepted, extend_with

OP = OPERATORS["accounts-access-requests"]
FOLDERS = ("/app", "/etc")
REPORT = "test_r6s1_reconciliation_report"
SUMMARY = "test_r6s1_summary_per_group"


def build(seed: int = 2) -> Step:
    found = discovery()
    return OP.step(found.artifacts[0], StepContext(discovery=found, rng=random.Random(seed), tag="r6s1"))


def run(step: Step, root: Path, solution: str | None = None) -> dict[str, str]:
    host = {"/app/onboarding/roster.csv": ROSTER.encode(), "/app/onboarding/groups.csv": GROUPS.encode(), **files()}
    return outcomes(step, root, files=host, folders=FOLDERS, solution=solution)


def planted(step: Step, name: str) -> list[dict[str, str]]:
    """A planted CSV file's rows, read back from the Dockerfile line that writes it."""
    line = next(line for line in step.dockerfile.splitlines() if line.endswith(f"/{name}"))
    text = base64.b64decode(line.split("'")[3]).decode()
    return list(csv.DictReader(io.StringIO(text)))


def test_it_applies_to_an_onboarding_roster_with_an_admin_group() -> None:
    found = discovery()
    roster, groups = found.artifacts
    assert OP.can_use(roster, found) and not OP.can_use(groups, found)
    assert not OP.can_use(roster, discovery(roster))  # no group list beside it
    lines = ROSTER.splitlines()
    few = artifact(
        "\n".join(lines[:1] + [line.rsplit(",", 2)[0] + ",," + "active" for line in lines[1:]]) + "\n", roster.path
    )
    assert not OP.can_use(few, discovery(few, groups))  # no memberships to audit


def test_decision_rules() -> None:
    def ticket(n: int, status: str, day: str, by: str = "amoreau", approver: str = "hlee") -> dict[str, str]:
        row = {"ticket": f"ACC-{n}", "username": "amoreau", "group": "vpn", "requested_by": by}
        return row | {"approved_by": approver, "status": status, "decided": day}

    tie = [ticket(998, "rejected", "2024-03-01"), ticket(1003, "approved", "2024-03-01")]
    assert shipped.latest_decisions(tie)[("amoreau", "vpn")]["ticket"] == "ACC-1003"
    later = [ticket(1010, "approved", "2024-03-01"), ticket(1004, "revoked", "2024-03-09"), ticket(1020, "pending", "")]
    assert shipped.latest_decisions(later)[("amoreau", "vpn")]["status"] == "revoked"

    def verdict(**changed: str) -> str:
        return shipped.verdict(ticket(1, "approved", "d", **changed), "analytics", {"analytics": "hlee"}, {"gbrown"})

    assert verdict() == "backed" and verdict(approver="gbrown") == "backed"  # the team's lead, an admin
    assert verdict(approver="jtanaka") == "wrong_approver"  # neither
    assert verdict(approver="amoreau") == "self_approved" and verdict(by="hlee") == "self_approved"


def test_build_is_deterministic_and_plants_each_kind_of_ticket() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    tickets = planted(step, "access_requests.csv")
    assert [t["ticket"] for t in tickets] == sorted((t["ticket"] for t in tickets), key=lambda t: int(t[4:]))
    assert {t["status"] for t in tickets} == {"approved", "rejected", "revoked", "pending"}
    assert any(t["username"] == t["approved_by"] == t["requested_by"] for t in tickets)
    assert any(t["username"] != t["approved_by"] == t["requested_by"] for t in tickets)
    assert any(t["username"] in ("eokafor", "iward") for t in tickets)  # a leaver's request
    assert min(int(t["ticket"][4:]) for t in tickets) < 1000 <= max(int(t["ticket"][4:]) for t in tickets)
    leads = planted(step, "leads.csv")
    assert [r["team"] for r in leads] == ["analytics", "platform", "support"]
    assert [a.path for a in step.produces] == ["/app/audit/access_reconciliation.csv", "/app/audit/access_summary.json"]
    assert "/etc/group" in step.instruction and "/app/incoming/r6s1/access_requests.csv" in step.instruction


def test_generated_tests_pass_on_the_reconciliation(tmp_path: Path) -> None:
    step = build()
    results = run(step, tmp_path)
    assert len(results) == 3 and not failed(results), results
    with (tmp_path / "app/audit/access_reconciliation.csv").open(newline="") as f:
        statuses = sorted({row["status"] for row in csv.DictReader(f)})
    assert statuses == sorted(
        ["backed", "not_granted", "rejected", "revoked", "self_approved", "unbacked", "wrong_approver"]
    )
    summary = json.loads((tmp_path / "app/audit/access_summary.json").read_text())
    assert sum(sum(c.values()) for c in summary.values()) == 10  # nine memberships and one request not granted


@pytest.mark.parametrize("seed", [0, 1, 3, 11])
def test_other_draws_pass_too(tmp_path: Path, seed: int) -> None:
    assert not failed(run(build(seed), tmp_path))


def test_generated_tests_fail_on_subtly_wrong_reconciliations(tmp_path: Path) -> None:
    step = build()
    first = step.solution.replace("decision_order(ticket) > decision_order(latest[key])", "False")
    assert first != step.solution  # the first decision filed counts, not the latest
    assert REPORT in failed(run(step, tmp_path / "first", first))
    lenient = step.solution.replace('approver in (ticket["username"], ticket["requested_by"])', "False")
    assert lenient != step.solution  # a self-approval passes for an approval
    assert REPORT in failed(run(step, tmp_path / "lenient", lenient))
    text = step.solution.replace('int(ticket["ticket"].rsplit("-", 1)[1])', 'ticket["ticket"]')
    assert text != step.solution  # ACC-998 taken for newer than ACC-1000
    assert REPORT in failed(run(step, tmp_path / "text", text))
    granted = step.solution.replace('rows.append([user, group, "not_granted", ticket["ticket"]])', "pass")
    assert granted != step.solution  # the approved requests the host never granted left out
    assert failed(run(step, tmp_path / "granted", granted)) == [REPORT, SUMMARY]


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    parent = shutil.copytree(SEED, tmp_path / SEED.name)  # the onboarded host and its groups
    proposal, report = extend_with("accounts-access-requests", parent)
    assert_accepted(proposal, report, "accounts-access-requests")
