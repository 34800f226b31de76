"""The job a lineage serves: who needs the work, what they need and why, and what kinds of deliverable
the job has room for. A lineage takes one scenario when it starts (its first child), by the domain of
its seed's artifacts, and keeps it: every later step must serve it, and the instruction opens with it
(`document.py`)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from rst_synth.proposers.artifacts import Kind


class Purpose(StrEnum):
    """What a deliverable is for; the instruction groups deliverables by it."""

    PREPARE = "prepare"
    """Getting inputs into a usable shape: loading, converting, migrating."""
    REPAIR = "repair"
    """Diagnosing and fixing a fault, recovering a broken state."""
    RECONCILE = "reconcile"
    """Checking one source against another, quarantining what does not fit."""
    REPORT = "report"
    """Figures and summaries the person in the story reads."""
    TOOL = "tool"
    """A program the team runs again, on inputs the tests make up."""
    SERVE = "serve"
    """A service that stays up and answers."""
    RELEASE = "release"
    """Building, packaging and shipping."""
    RECORD = "record"
    """Bookkeeping for the file: archives, checksum lists, listings, counts."""


HEADINGS = {
    Purpose.PREPARE: "Getting the inputs in shape",
    Purpose.REPAIR: "Faults to diagnose and fix",
    Purpose.RECONCILE: "Reconciling the sources",
    Purpose.REPORT: "Figures to report",
    Purpose.TOOL: "Tools to keep",
    Purpose.SERVE: "Services to run",
    Purpose.RELEASE: "Building and shipping",
    Purpose.RECORD: "Records to keep",
}
"""The section heading of each purpose in a lineage's instruction."""

EVERY_PURPOSE = frozenset(Purpose)


@dataclass(frozen=True)
class Scenario:
    """The job the person in the story is doing."""

    name: str
    title: str
    who: str
    """Who needs the work, as the subject of a sentence ("The finance team")."""
    need: str
    """What they are doing and need, continuing the sentence ("is closing the quarter and needs ...")."""
    why: str
    """Why it matters, one sentence."""
    kinds: frozenset[Kind]
    """The seed artifacts' kinds this job fits."""
    purposes: frozenset[Purpose] = EVERY_PURPOSE
    """The kinds of deliverable the job has room for."""
    words: frozenset[str] = frozenset()
    """Words of a seed's instruction that say the seed is about this job."""

    def opening(self) -> str:
        """The instruction's first paragraph."""
        return (
            f"{self.who} {self.need}. {self.why} The work is described below in parts, grouped by what each "
            "deliverable is for; every part states exactly what it must produce and names the files it builds "
            "on, some of which other parts make."
        )


_DATA = frozenset({Kind.CSV, Kind.SQLITE, Kind.JSON})
_LOGS = frozenset({Kind.TEXT})
_CODE = frozenset({Kind.C_SOURCE, Kind.BUILD, Kind.EXECUTABLE, Kind.LIBRARY, Kind.PYTHON_SOURCE})
_NO_SERVICE = EVERY_PURPOSE - {Purpose.SERVE}

SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "quarter-close",
        "Quarter close",
        "The finance team",
        "is closing the quarter on the data in this environment and needs its figures loaded, checked "
        "against the other sources and summarised, with tools it can run again next quarter",
        "Auditors will ask how every figure was obtained, so each must follow from the files here by stated rules.",
        _DATA,
        _NO_SERVICE - {Purpose.RELEASE},
        words=frozenset("sales finance revenue invoice invoices orders quarter payments dollars region".split()),
    ),
    Scenario(
        "inventory-audit",
        "Inventory audit",
        "The operations team",
        "is auditing stock and its value ahead of the yearly count and needs the records reconciled, the "
        "faults in them found and the numbers reported per place and product",
        "The count's results go to management, so a wrong total or a silently dropped row is a real problem.",
        _DATA,
        _NO_SERVICE - {Purpose.RELEASE},
        words=frozenset("inventory stock warehouse warehouses products cost cents count".split()),
    ),
    Scenario(
        "data-migration",
        "Data migration",
        "The platform team",
        "is moving this data to a new system and needs it cleaned, converted and served in the shapes the "
        "new system reads, with checks that nothing was lost on the way",
        "The old system is switched off after the move, so whatever the migration drops is gone.",
        _DATA | frozenset({Kind.CONFIG}),
        EVERY_PURPOSE - {Purpose.RELEASE},
        words=frozenset("migrate migration api export import json pages records flatten".split()),
    ),
    Scenario(
        "incident-review",
        "Incident review",
        "The on-call engineers",
        "are reviewing last week's incident and need the logs and records here turned into a timeline of "
        "what happened, the figures that show its impact, and tools for the next incident",
        "The review decides what gets fixed first, so its numbers must be right and reproducible.",
        _LOGS | frozenset({Kind.CSV, Kind.JSON}),
        _NO_SERVICE - {Purpose.RELEASE},
        words=frozenset("log logs access incident errors outage requests server latency".split()),
    ),
    Scenario(
        "crm-import",
        "Customer records import",
        "The support team",
        "is importing the notes and exports here into its customer records system and needs the contacts, "
        "dates and figures in them extracted, deduplicated and checked",
        "Duplicate or malformed records would reach customers, so every rule below is strict.",
        _LOGS | frozenset({Kind.CSV}),
        _NO_SERVICE - {Purpose.RELEASE},
        words=frozenset("email emails contact contacts notes support tickets crm phone".split()),
    ),
    Scenario(
        "release",
        "Release",
        "The maintainers",
        "are preparing the next release of the software here and need it built, checked, packaged and its "
        "changes described, with tools the release process can run again",
        "Users install what ships, so a build that differs from the reviewed one or a broken package is a "
        "real problem.",
        _CODE | frozenset({Kind.GIT, Kind.CONFIG}),
        EVERY_PURPOSE - {Purpose.SERVE},
        words=frozenset("release tag version changelog package wheel build ship install".split()),
    ),
    Scenario(
        "code-health",
        "Code health review",
        "The engineering lead",
        "is reviewing the health of the code and history here and needs faults found and fixed, the history "
        "measured and the build made dependable",
        "The review decides where the next quarter's effort goes, so its findings must be exact.",
        _CODE | frozenset({Kind.GIT, Kind.SHELL_SCRIPT}),
        EVERY_PURPOSE - {Purpose.SERVE},
        words=frozenset("makefile sources compile bug fix tests function functions".split()),
    ),
    Scenario(
        "config-rollout",
        "Configuration rollout",
        "The operations team",
        "is rolling out new configuration to its hosts and needs the settings here merged, converted, "
        "validated and applied, with tools that check a host before and after",
        "A bad setting takes a service down on every host at once, so every rule below is checked.",
        frozenset({Kind.CONFIG, Kind.JSON, Kind.TEXT}),
        words=frozenset("config configuration ini toml settings defaults overrides service".split()),
    ),
    Scenario(
        "service-handover",
        "Service handover",
        "The on-call team",
        "is taking over the service here and needs it running, supervised, reachable by the clients that "
        "depend on it and described by figures it can check at any time",
        "The service runs unattended at night, so it must come back on its own and answer exactly as stated.",
        frozenset({Kind.PYTHON_SOURCE, Kind.EXECUTABLE, Kind.CSV, Kind.TEXT}),
        words=frozenset("service daemon http port listens endpoint dashboard started running".split()),
    ),
    Scenario(
        "backup-audit",
        "Backup and access audit",
        "The systems administrator",
        "is preparing for a security and backup audit of this host and needs its schedules, files and "
        "permissions checked, its records made reproducible and its retention rules applied",
        "The audit fails on any file that cannot be accounted for, so every listing below is exact.",
        frozenset({Kind.TEXT, Kind.CSV, Kind.ARCHIVE, Kind.SHELL_SCRIPT, Kind.CONFIG}),
        _NO_SERVICE - {Purpose.RELEASE},
        words=frozenset(
            "backup backups cron schedule permissions user users username uid gid groups accounts sudo checksum "
            "manifest archive onboarding".split()
        ),
    ),
)

BY_NAME = {scenario.name: scenario for scenario in SCENARIOS}


def scenario_for(kinds: Iterable[Kind], instruction: str, key: str) -> Scenario:
    """The scenario a lineage takes, from its seed: the one whose words the seed's instruction uses most (each
    word counts twice) and whose kinds its artifacts have, drawn by `key` (the lineage's root) among equals,
    so that a lineage's scenario is stable."""
    present = set(kinds)
    said = set(re.findall(r"[a-z]+", instruction.lower()))

    def score(scenario: Scenario) -> int:
        return 2 * len(scenario.words & said) + len(scenario.kinds & present)

    best = max(map(score, SCENARIOS))
    fitting = [s for s in SCENARIOS if score(s) == best]
    digest = int(hashlib.sha256(key.encode()).hexdigest()[:8], 16)
    return fitting[digest % len(fitting)]
