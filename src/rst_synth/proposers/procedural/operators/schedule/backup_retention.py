"""Backup retention for a scheduled job: the archives the job wrote over five months (one per run, a few
runs missed, a few made by hand) are planted as dated names; a grandfather-father-son retention tool keeps
the newest archive of each of the last N days, weeks and months and deletes the rest. The tests run the
tool on timestamps they generate (ISO week and month boundaries, several archives a day)."""

from __future__ import annotations

import datetime
import re

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.workflow import (
    fresh_path,
    inside_git,
    planted_dir,
    run_at_build,
    stem_of,
    tool_path,
    work_root,
)
from rst_synth.proposers.procedural.operators.schedule.cron_next_runs import MAX_BYTES
from rst_synth.proposers.procedural.operators.schedule.crontab import commands, reference, schedule_entries, user_field
from rst_synth.proposers.procedural.operators.schedule.shipped import retention
from rst_synth.proposers.procedural.shipping import render

BACKUP_WORDS = re.compile(r"backup|dump|archive|snapshot|\btar\b|rsync|borg|restic", re.IGNORECASE)
"""A job whose command says it makes backups: the schedule's archives are what retention is about."""
WINDOW_DAYS = 150
MIN_ARCHIVES = 60
MAX_ARCHIVES = 700


def _runs(artifact: Artifact) -> list[datetime.datetime]:
    """The schedule's run times over the window (at most four a day), oldest first."""
    text = artifact.sample[: artifact.sample.rfind("\n") + 1] or artifact.sample
    start = datetime.datetime(2026, 1, 5)
    last = start + datetime.timedelta(days=WINDOW_DAYS)
    runs: list[datetime.datetime] = []
    day = start
    while day < last:
        lines = reference()["next_runs"](text, user_field(artifact.path), day - datetime.timedelta(minutes=1), 4)
        times = [datetime.datetime.strptime(line.split()[0], "%Y-%m-%dT%H:%M") for line in lines]
        runs += sorted({t for t in times if t.date() == day.date()})
        day += datetime.timedelta(days=1)
    return runs


def _prefix(artifact: Artifact) -> str:
    return re.sub(r"[^a-z0-9]+", "-", stem_of(artifact).lower()).strip("-") or "backup"


def _tool_of(discovery: Discovery, artifact: Artifact) -> str:
    return f"{work_root(discovery)}/bin/{stem_of(artifact)}_retention"


@register
class BackupRetentionGfs(ToolOperator):
    """Grandfather-father-son retention of the archives a scheduled backup job wrote, as a tool."""

    name = "backup-retention-gfs"
    kinds = (Kind.TEXT,)

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        root = work_root(discovery)
        return (
            artifact.size <= MAX_BYTES
            and not any(inside_git(f"{root}/{d}/x", discovery) for d in ("bin", "incoming", "retention"))
            and _tool_of(discovery, artifact) not in discovery.paths()
            and bool(schedule_entries(artifact))
            and any(BACKUP_WORDS.search(command) for command in commands(artifact))
            and MIN_ARCHIVES <= len(_runs(artifact))
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        rng, prefix = ctx.rng, _prefix(artifact)
        runs = _runs(artifact)
        if len(runs) > MAX_ARCHIVES:
            runs = sorted(rng.sample(runs, MAX_ARCHIVES))
        kept = [t for t in runs if rng.random() > 0.06]  # failed runs leave no archive
        manual = [runs[0] + datetime.timedelta(minutes=rng.randrange(WINDOW_DAYS * 1440)) for _ in range(3)]
        names = sorted({f"{prefix}-{t:%Y%m%d-%H%M}.tar.gz" for t in kept + manual})
        names += ["README.txt", f"{prefix}-latest.tar.gz"]
        folder = f"{planted_dir(ctx)}/archives"
        tool = tool_path(ctx, artifact, "retention")
        out = fresh_path(ctx, f"{work_root(ctx.discovery)}/retention", f"{stem_of(artifact)}_plan.txt")
        daily, weekly, monthly = rng.choice([7, 10, 14]), rng.choice([4, 5, 8]), rng.choice([3, 4, 6])
        seed = rng.randrange(10**6)
        create = (
            "import os\n"
            f"folder = {folder!r}\nos.makedirs(folder, exist_ok=True)\n"
            f"for name in {names!r}:\n    open(os.path.join(folder, name), 'w').write(name + '\\n')\n"
        )
        code = render(retention, ["main"], PREFIX=prefix)
        call = "sys.exit(main(sys.argv))"
        run = f"{q(tool)} --delete {q(folder)} {daily} {weekly} {monthly} > {q(out)}"
        solution = self.tool_solution(tool, code, call, run, out)
        tests = render(
            retention,
            [
                "test_plan_of_the_archives",
                "test_pruned_archives_deleted",
                "test_tool_on_fresh_timestamps",
                "test_tool_rejects_bad_arguments",
            ],
            tag=ctx.tag,
            TOOL=tool,
            FOLDER=folder,
            OUT=out,
            PREFIX=prefix,
            SEED=seed,
            COUNTS=(daily, weekly, monthly),
            ORIGINAL=names,
        )
        instruction = " ".join(
            f"""The job scheduled in `{artifact.path}` writes one backup archive per run; the archives of the
            last five months are in `{folder}` (already in the environment), named `{prefix}-YYYYMMDD-HHMM.tar.gz`
            after the run's date and time (some runs failed and left none, a few were made by hand). Write a
            retention tool `{tool}` (an executable file with a `#!` line): `{tool} [--delete] DIR DAILY WEEKLY
            MONTHLY` (three integers >= 0) considers the files in DIR whose name has exactly that form with a real
            date and time (`{prefix}-` then 8 digits, `-`, 4 digits, `.tar.gz`; a name such as
            `{prefix}-20260230-0100.tar.gz` or any other file is no archive: never listed, never deleted). It keeps
            the newest archive of each of the DAILY most recent calendar days that have archives, of each of the
            WEEKLY most recent ISO weeks (ISO year and week number) that have archives, and of each of the MONTHLY
            most recent calendar months that have archives; every other archive is to be deleted. It prints one line
            per archive, newest first: `keep NAME RULES`, RULES being the rules that keep it among `daily`,
            `weekly`, `monthly`, in that order, joined by `,` (e.g. `keep NAME daily,monthly`), or `delete NAME`;
            each line ends with `\\n`. With `--delete` it also deletes the archives marked `delete`. It exits 0, or
            when the arguments are wrong (a count that is not a non-negative integer, a DIR that is not a folder)
            prints a usage line to standard error, nothing to standard output, and exits 2. Then apply it to
            `{folder}` with DAILY {daily}, WEEKLY {weekly} and MONTHLY {monthly}, deleting what it prunes, and save
            its output as `{out}` (create the folder).""".split()
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile=run_at_build(create),
            produces=[
                Artifact(path=out, kind=Kind.TEXT, bookkeeping=True),
                self.executable(tool),
            ],
        )
