"""What the git operators read off a repository artifact and stamp into their commits: whether the repository is
ready for a step, its log, fixed identities and dates."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from rst_synth.proposers.artifacts import Artifact
from rst_synth.proposers.procedural.operator import (
    StepContext,
    q,
)

IDENTITIES = (
    ("Release Bot", "release-bot@example.com"),
    ("Build Robot", "robot@builds.example.org"),
    ("Ada Steward", "ada.steward@example.net"),
)


DATES = ("2024-03-01T09:30:00+00:00", "2023-11-15T18:05:00+00:00", "2025-01-20T07:45:30+00:00")


PLAIN_PATH = re.compile(r'[^\x00-\x1f"\\\x7f]+')
"""No control characters, quotes or backslashes: git prints such paths unquoted (core.quotePath off)."""


def git_ready(artifact: Artifact) -> bool:
    d = artifact.details
    branch = d.get("branch")
    return (
        isinstance(branch, str)
        and bool(branch)
        and branch != "HEAD"
        and not branch.startswith("-")
        and isinstance(d.get("commits"), int)
        and d["commits"] >= 1
    )


def epoch(iso: str) -> int:
    return int(datetime.fromisoformat(iso).astimezone(UTC).timestamp())


SUBJECT = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ():!,.+_/#-]{2,70}")
"""Subjects a step may quote: no quotes, backslashes, backticks or shell metacharacters."""


def commit_log(artifact: Artifact) -> list[dict[str, Any]]:
    log = artifact.details.get("log") or []
    return [e for e in log if isinstance(e, dict) and isinstance(e.get("subject"), str)]


def unique_subject(log: list[dict[str, Any]], subject: str) -> bool:
    return bool(SUBJECT.fullmatch(subject)) and sum(e["subject"] == subject for e in log) == 1


def committer(ctx: StepContext) -> tuple[str, str, str, str]:
    who, email = ctx.rng.choice(IDENTITIES)
    date = ctx.rng.choice(DATES)
    env = f"GIT_COMMITTER_NAME={q(who)} GIT_COMMITTER_EMAIL={q(email)} GIT_COMMITTER_DATE={q(date)}"
    return who, email, date, env
