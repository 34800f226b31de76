"""Overlapping jobs: the lineage's cron schedule and another team's maintenance schedule run side by side;
with each job's stated duration, a tool lists every pair of runs in a window that overlap (a job still
running when another, or its own next run, starts) and by how many minutes. The tests run the tool on
schedules and durations they generate, against the cron rules of the reference."""

from __future__ import annotations

import datetime

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.workflow import (
    fresh_path,
    inside_git,
    plant,
    planted_dir,
    stem_of,
    tool_path,
    work_root,
)
from rst_synth.proposers.procedural.operators.schedule.cron_next_runs import MAX_BYTES
from rst_synth.proposers.procedural.operators.schedule.crontab import (
    WINDOW_YEARS,
    commands,
    fires,
    schedule_entries,
)
from rst_synth.proposers.procedural.operators.schedule.shipped import cron, overlap_report
from rst_synth.proposers.procedural.shipping import render

MAINTENANCE = (
    ("10 0 * * *", "/usr/local/bin/db-dump.sh --all", 95),
    ("0 */4 * * *", "/usr/local/bin/rotate-logs.sh", 20),
    ("30 6 * * 1-5", "/usr/local/bin/report.sh --daily", 45),
    ("15 5 * * 0", "/usr/local/bin/fsck-check.sh", 240),
    ("45 23 * * 5", "/usr/local/bin/vacuum.sh", 70),
)


def _tool_of(discovery: Discovery, artifact: Artifact) -> str:
    return f"{work_root(discovery)}/bin/{stem_of(artifact)}_overlaps"


@register
class CronOverlapReport(ToolOperator):
    """Runs of two schedules that overlap in a week, given each job's duration, listed by a tool."""

    name = "cron-overlap-report"
    final = True  # a report of run pairs: an end result
    once = True  # the tool is the same program whatever the schedule: a second step would copy it
    kinds = (Kind.TEXT,)

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        root = work_root(discovery)
        return (
            artifact.size <= MAX_BYTES
            and len(artifact.sample.encode("utf-8")) == artifact.size
            and not any(inside_git(f"{root}/{d}/x", discovery) for d in ("bin", "incoming", "schedule"))
            and _tool_of(discovery, artifact) not in discovery.paths()
            and bool(schedule_entries(artifact))
            and fires(artifact)
            and all(c and "\n" not in c for c in commands(artifact))
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        rng = ctx.rng
        jobs = rng.sample(MAINTENANCE, 4)
        other = fresh_path(ctx, planted_dir(ctx), "maintenance.cron")
        durations_file = fresh_path(ctx, planted_dir(ctx), "durations.txt")
        ours = [(rng.choice([35, 50, 75, 130, 400]), c) for c in commands(artifact)]
        durations = "# minutes, then the command exactly as in the schedules\n" + "".join(
            f"{m} {c}\n" for m, c in sorted(ours + [(d, c) for _, c, d in jobs], key=lambda x: x[1])
        )
        schedule = "# maintenance jobs of the database team\nMAILTO=dba\n" + "".join(f"{t} {c}\n" for t, c, _ in jobs)
        tool = tool_path(ctx, artifact, "overlaps")
        out = fresh_path(ctx, f"{work_root(ctx.discovery)}/schedule", f"{stem_of(artifact)}_overlaps.txt")
        monday = datetime.datetime(2026, 1, 5) + datetime.timedelta(weeks=rng.randrange(40))
        start, end = f"{monday:%Y-%m-%dT%H:%M}", f"{monday + datetime.timedelta(days=7):%Y-%m-%dT%H:%M}"
        seed = rng.randrange(10**6)
        rules = render(cron, ["MalformedEntry", "next_runs"], WINDOW_YEARS=WINDOW_YEARS)
        code = rules + "\n\n" + render(overlap_report, ["main"])
        call = "sys.exit(main(sys.argv))"
        run = f"{q(tool)} {q(durations_file)} {start} {end} {q(artifact.path)} {q(other)} > {q(out)}"
        solution = self.tool_solution(tool, code, call, run, out)
        tests = rules + render(
            overlap_report,
            ["test_overlaps_of_the_week", "test_tool_on_fresh_schedules", "test_tool_rejects_bad_input"],
            tag=ctx.tag,
            TOOL=tool,
            SRC=artifact.path,
            OTHER=other,
            DURATIONS=durations_file,
            OUT=out,
            START=start,
            END=end,
            SEED=seed,
        )
        instruction = " ".join(
            f"""Another team adds its maintenance jobs in `{other}` (a schedule without a user field); the
            jobs of `{artifact.path}` and of that file share one machine. `{durations_file}` states how long each
            job runs: lines `MINUTES COMMAND` (an integer >= 1, whitespace, then the command exactly as in the
            schedules; blank lines and `#` lines skipped). Write a command-line tool `{tool}` (an executable file
            with a `#!` line): `{tool} DURATIONS START END FILE...` reads cron schedules (a FILE whose path starts
            with `/etc/cron.d/`, or is `/etc/crontab`, has a user field after the five time fields; other files
            have none; the five time fields are minute, hour, day of month, month and day of week, each a
            comma-separated list of `*`, numbers, ranges `a-b` and steps `*/n` or `a-b/n`, 0 and 7 both Sunday,
            and when both day fields are restricted a day matches if either matches; names and `@` macros are not
            supported; blank, `#` and `NAME=value` lines are skipped but counted for line numbers). An entry's
            command is the rest of its line after the time fields (and the user field), surrounding whitespace
            removed. Every run that starts at or after START and before END (both `YYYY-MM-DDTHH:MM`, wall-clock
            minutes) lasts its command's duration. Two runs overlap when one starts before the other ends (a run
            ending at the minute another starts does not overlap it; runs of the same entry count too). For each
            overlapping pair the tool prints one line `START_A FILE_A:LINE_A START_B FILE_B:LINE_B MINUTES`,
            where A is the earlier of the two by start time, then by the position of its FILE on the command
            line, then by line number, FILE is written as given, LINE is the entry's 1-based line number and
            MINUTES the number of minutes both run; lines are sorted by A then B in that same order and end with
            `\\n`. It exits 0; it prints one line to standard error, nothing to standard output and exits 2 when
            an entry is malformed or has no duration (naming it as `FILE:LINE`), or when the arguments are wrong
            (END not after START, no FILE, an unreadable file, a bad duration line). Then run it for the week
            from `{start}` to `{end}` with `{durations_file}` on `{artifact.path}` and `{other}` (in that order),
            saving its output as `{out}` (create the folder).""".split()
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile=plant(other, schedule) + plant(durations_file, durations),
            produces=[Artifact(path=out, kind=Kind.TEXT), self.executable(tool)],
        )
