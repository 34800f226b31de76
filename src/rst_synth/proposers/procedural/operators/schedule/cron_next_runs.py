"""Schedule operators: a cron schedule the workflow installed gets a tool that answers "when does it run
next?", which needs the cron rules (lists, ranges, steps, the day-of-month/day-of-week OR rule, leap days).
The tests run the tool on schedules they write themselves and compare with a reference implementation."""

from __future__ import annotations

import datetime

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.workflow import (
    fresh_path,
    inside_git,
    stem_of,
    tool_path,
    work_root,
)
from rst_synth.proposers.procedural.operators.schedule.crontab import (
    WINDOW_YEARS,
    fires,
    schedule_entries,
    user_field,
)
from rst_synth.proposers.procedural.operators.schedule.shipped import cron, next_runs
from rst_synth.proposers.procedural.shipping import render

MAX_BYTES = 64 * 1024


def _tool_of(discovery: Discovery, artifact: Artifact) -> str:
    return f"{work_root(discovery)}/bin/{stem_of(artifact)}_next_runs"


@register
class CronNextRuns(ToolOperator):
    """A tool that lists the next runs of a cron schedule, run on the schedule the workflow installed."""

    name = "cron-next-runs"
    once = True  # the tool is the same program whatever the schedule: a second step would copy it
    final = True  # its outputs are reports: in a later round a step on them would be statistics of a report
    kinds = (Kind.TEXT,)

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return (
            artifact.size <= MAX_BYTES
            and not inside_git(artifact.path, discovery)
            and not inside_git(f"{work_root(discovery)}/bin/x", discovery)
            and _tool_of(discovery, artifact) not in discovery.paths()
            and bool(schedule_entries(artifact))
            and fires(artifact)
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        tool = tool_path(ctx, artifact, "next_runs")
        # Next to the tools, not next to the schedule: /etc/cron.d is for schedules only.
        out = fresh_path(ctx, f"{work_root(ctx.discovery)}/schedule", f"{stem_of(artifact)}_next_runs.txt")
        user = user_field(artifact.path)
        when = datetime.datetime(2026, 1, 1) + datetime.timedelta(minutes=ctx.rng.randrange(730 * 1440))
        start = f"{when:%Y-%m-%dT%H:%M}"
        count = ctx.rng.randint(8, 20)
        seed = ctx.rng.randrange(10**6)
        rules = render(cron, ["MalformedEntry", "next_runs"], WINDOW_YEARS=WINDOW_YEARS)
        code = rules + "\n\n" + render(next_runs, ["main"], USER_FIELD=user)
        call = "sys.exit(main(sys.argv))"
        run = f"{q(tool)} {q(artifact.path)} {start} {count} > {q(out)}"
        solution = self.tool_solution(tool, code, call, run, out)
        tests = rules + render(
            next_runs,
            [
                "test_next_runs_of_the_schedule",
                "test_tool_on_fresh_schedules",
                "test_tool_rejects_malformed_entries",
            ],
            tag=ctx.tag,
            TOOL=tool,
            SRC=artifact.path,
            OUT=out,
            START=start,
            COUNT=count,
            USER_FIELD=user,
            SEED=seed,
        )
        fields = (
            "five time fields, then the user name, then the command" if user else "five time fields, then the command"
        )
        instruction = (
            f"Write a command-line tool `{tool}` (an executable file with a `#!/usr/bin/env python3` line) that "
            f"lists when a cron schedule runs next. `{tool} FILE START N` reads FILE, a schedule in the same format as "
            f"`{artifact.path}` ({'with' if user else 'without'} a user field: each entry is {fields}, separated by "
            "spaces or tabs, leading blanks allowed), START, a wall-clock time `YYYY-MM-DDTHH:MM`, and N, an integer "
            ">= 1. It prints the next N run times strictly after START over all entries merged in time order, one "
            "line per (time, entry), as `YYYY-MM-DDTHH:MM LINE` ending in `\\n`, where LINE is the entry's 1-based "
            "line number in FILE; entries due in the same minute are listed by line number (each such line counts "
            "towards N). Blank lines, comment lines (first non-blank character `#`) and environment assignments "
            "`NAME=value` are skipped but count for line numbers. The time fields are minute 0-59, hour 0-23, day of "
            "month 1-31, month 1-12 and day of week 0-7 (0 and 7 are both Sunday, 1 is Monday); each is a "
            "comma-separated list of items, an item being `*`, a number, a range `a-b` (a <= b), or a step `*/n` or "
            "`a-b/n` (n >= 1: every n-th value from the start of the range, `*` being the field's whole range). "
            "Month and day names (`mon`, `jan`) and `@` macros (`@daily`) are not supported. A day matches when its "
            "month matches and, if both the day-of-month and the day-of-week fields are restricted (neither is "
            "exactly `*`), either of them matches (the Vixie cron rule); otherwise both must match. Times are plain "
            f"wall-clock times (no time zones, no daylight saving). Only run times up to 31 December of START's year "
            f"+ {WINDOW_YEARS} count: an entry that never fires within that window (like `0 0 30 2 *`) contributes "
            "no line, and when fewer than N runs exist there, the tool prints those it found. A malformed entry "
            "(too few fields, a value out of range, a reversed range, a bad step such as `*/0`, a name or a macro) "
            "makes the tool print one line to standard error naming its line number, nothing to standard output, "
            "and exit with status 2; otherwise it exits 0. Each run must finish within 30 seconds (skip days that "
            f"cannot match rather than stepping minute by minute). Then run it on `{artifact.path}` with START "
            f"`{start}` and N = {count}, and save its standard output as `{out}` (create the folder if needed)."
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[
                Artifact(path=out, kind=Kind.TEXT, bookkeeping=True),
                self.executable(tool),
            ],
        )
