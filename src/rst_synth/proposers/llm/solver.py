"""What a prompt says of the solver's attempts: solved k of K, the commands each solved attempt ran,
and the commands of one solved attempt, shortened (first N, each cut to a width, all within a
character budget). A too_easy repair quotes the child's (repair.j2); the extend prompt the parent's
(extend.j2), so the proposer knows how much work the step before took an agent."""

from __future__ import annotations

from typing import Any

from rst_synth.task import SolveRate, SolverEvidence, Task


def shorten_commands(commands: list[str], *, most: int, width: int, chars: int) -> tuple[list[str], int]:
    """The first `most` commands, each on one line cut to `width` characters, together within
    `chars` characters (the first always shown); and how many were left out."""
    shown: list[str] = []
    used = 0
    for command in commands[:most]:
        line = " ".join(command.split())
        if len(line) > width:
            line = line[: max(width - 3, 1)] + "..."
        if shown and used + len(line) + 1 > chars:
            break
        shown.append(line)
        used += len(line) + 1
    return shown, len(commands) - len(shown)


def evidence_context(evidence: SolverEvidence, *, most: int, width: int, chars: int) -> dict[str, Any]:
    """The template's view of the evidence: `solved`, `k`, `counts` ("3, 5": commands per solved
    attempt), `commands` (one solved attempt's, shortened) and `more` (its commands left out)."""
    commands, more = shorten_commands(evidence.commands, most=most, width=width, chars=chars)
    return {
        "solved": evidence.solved,
        "k": evidence.k,
        "counts": ", ".join(str(n) for n in evidence.commands_per_solved),
        "commands": commands,
        "more": more,
    }


def parent_solved(parent: Task, *, most: int, width: int, chars: int) -> list[dict[str, Any]]:
    """How each agent with a solve rate on `parent` did (eval id, agent), with the evidence where the
    engine read the attempts from its store; only the rate's k of K otherwise."""
    rates: dict[str, SolveRate] = parent.config.metadata.solve_rate or {}
    views = []
    for key, rate in sorted(rates.items()):
        evidence = rate.evidence
        if rate.k is None and evidence is None:
            continue  # a bare share from an older export: no count to quote
        view = {"counts": "", "commands": [], "more": 0}
        if evidence is not None:
            view = evidence_context(evidence, most=most, width=width, chars=chars)
        if rate.k is not None:  # task.toml's rate is what labelled the parent
            view.update(solved=round(rate.rate * rate.k), k=rate.k)
        views.append({"eval_id": key, "agent": rate.agent or key, **view})
    return views
