"""Schedule operators: a cron schedule the workflow installed gets a tool that answers "when does it run
next?", which needs the cron rules (lists, ranges, steps, the day-of-month/day-of-week OR rule, leap days).
The tests run the tool on schedules they write themselves and compare with a reference implementation."""

from __future__ import annotations

import datetime

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.workflow import (
    RUN_TOOL,
    fresh_path,
    inside_git,
    stem_of,
    tool_path,
    work_root,
)
from rst_synth.proposers.procedural.operators.schedule.crontab import (
    NEXT_RUNS_PY,
    WINDOW_YEARS,
    fires,
    schedule_entries,
    user_field,
)

MAX_BYTES = 64 * 1024


TOOL_MAIN = """
def main(argv):
    try:
        path, start, count = argv[1:]
        start, count = datetime.datetime.strptime(start, "%Y-%m-%dT%H:%M"), int(count)
        if count < 1:
            raise ValueError(count)
    except ValueError:
        print("usage: " + argv[0] + " FILE YYYY-MM-DDTHH:MM N", file=sys.stderr)
        return 2
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        lines = next_runs(text, USER_FIELD, start, count)
    except MalformedEntry as bad:
        print(f"line {bad.args[0]}: malformed cron entry", file=sys.stderr)
        return 2
    sys.stdout.write("".join(line + "\\n" for line in lines))
    return 0


sys.exit(main(sys.argv))
"""

FRESH_PY = """
def entry(times):
    return times + (" root" if USER_FIELD else "") + " /usr/local/bin/job.sh --flag >> /tmp/job.log 2>&1"


def random_field(rng, low, high, day_field):
    if rng.random() < 0.3:
        return "*"
    items = []
    for _ in range(rng.randint(1, 3)):
        first = rng.randint(low, high)
        last = rng.randint(first, high)
        kind = rng.randrange(3 if day_field else 4)  # no */n in day fields: "restricted" stays obvious
        forms = [str(first), f"{first}-{last}", f"{first}-{last}/{rng.randint(1, 7)}", f"*/{rng.randint(1, 13)}"]
        items.append(forms[kind])
    return ",".join(items)


def fresh_schedules(seed):
    rng = random.Random(seed)
    cases = [
        (["# lists, ranges, steps", "MAILTO=ops", entry("5,20,47 8,17 * * *"), entry("0 9-11 * * 1-5"), "",
          entry("*/20 */5 * * *")], "2026-03-01T07:58", 25),
        ([entry("10-50/15 2-22/4 * * 1-5"), "SHELL=/bin/sh", entry("0 0 13 * 5"), entry("30 18 * * 7")],
         "2026-01-30T12:00", 30),
        ([entry("0 12 29 2 *")], "2027-01-10T00:00", 3),
        ([entry("0 0 13 * 5")], "2026-04-01T00:00", 6),
        (["# Sundays", entry("30 18 * * 7")], "2026-04-01T00:00", 3),
        ([entry("0 12 * * *"), "# the same minute", entry("0 12 * * 0-6"), entry("0 */12 * * *")],
         "2026-06-30T11:59", 9),
        ([entry("0 0 30 2 *"), "PATH = /usr/bin:/bin", entry("45 23 31 12 *")], "2026-12-31T23:44", 3),
        (["  # never", entry("0 0 30 2 *")], "2026-05-05T05:05", 4),
    ]
    for _ in range(5):
        lines = []
        for _ in range(rng.randint(2, 5)):
            if rng.random() < 0.3:
                lines.append(rng.choice(["# note", "", "MAILTO=root", "\\t# indented"]))
            dom, dow = random_field(rng, 1, 31, True), random_field(rng, 0, 7, True)
            times = [random_field(rng, 0, 59, False), random_field(rng, 0, 23, False), dom,
                     random_field(rng, 1, 12, False), dow]
            lines.append(entry(rng.choice([" ", "\\t"]).join(times)))
        start = datetime.datetime(2026, 1, 1) + datetime.timedelta(minutes=rng.randrange(730 * 1440))
        cases.append((lines, f"{start:%Y-%m-%dT%H:%M}", rng.randint(5, 40)))
    return cases


MALFORMED = ["61 * * * *", "0 24 * * *", "0 0 0 * *", "0 0 1 13 *", "0 0 * * 8", "*/0 * * * *",
             "0-30/0 * * * *", "30-10 * * * *", "0 0 * * mon", "@daily"]
"""


def _tool_of(discovery: Discovery, artifact: Artifact) -> str:
    return f"{work_root(discovery)}/bin/{stem_of(artifact)}_next_runs"


@register
class CronNextRuns(Operator):
    """A tool that lists the next runs of a cron schedule, run on the schedule the workflow installed."""

    name = "cron-next-runs"
    once = True  # the tool is the same program whatever the schedule: a second step would copy it
    final = True  # its outputs are reports: in a later round a step on them would be statistics of a report
    kinds = (Kind.TEXT,)
    tools = ("python3",)
    weight = 3.0

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
        solution = f"""mkdir -p {q(tool.rsplit("/", 1)[0])} {q(out.rsplit("/", 1)[0])}
cat > {q(tool)} <<'PY'
#!/usr/bin/env python3
import datetime, heapq, itertools, re, sys

USER_FIELD, WINDOW_YEARS = {user!r}, {WINDOW_YEARS}
{NEXT_RUNS_PY.strip()}

{TOOL_MAIN.strip()}
PY
chmod 0755 {q(tool)}
{q(tool)} {q(artifact.path)} {start} {count} > {q(out)}"""
        tests = f"""
TOOL, SRC, OUT, START, COUNT = {tool!r}, {artifact.path!r}, {out!r}, {start!r}, {count}
USER_FIELD, WINDOW_YEARS = {user!r}, {WINDOW_YEARS}
{NEXT_RUNS_PY}{FRESH_PY}{RUN_TOOL}

def expected(text, start, count):
    when = datetime.datetime.strptime(start, "%Y-%m-%dT%H:%M")
    return "".join(line + "\\n" for line in next_runs(text, USER_FIELD, when, count))


def test_{ctx.tag}_next_runs_of_the_schedule():
    want = expected(pathlib.Path(SRC).read_text(encoding="utf-8"), START, COUNT)
    assert want
    assert pathlib.Path(OUT).read_text(encoding="utf-8") == want


def test_{ctx.tag}_tool_on_fresh_schedules(tmp_path):
    for k, (lines, start, count) in enumerate(fresh_schedules({seed})):
        text = "\\n".join(lines) + "\\n"
        path = tmp_path / f"schedule{{k}}"
        path.write_text(text, encoding="utf-8")
        done = run_tool(TOOL, path, start, count, timeout=30)
        assert done.returncode == 0, (text, done.stderr[-500:])
        assert done.stdout.decode("utf-8") == expected(text, start, count), (text, start, count)
    leap = tmp_path / "schedule2"
    assert run_tool(TOOL, leap, "2027-01-10T00:00", 1).stdout.decode().split()[0] == "2028-02-29T12:00"


def test_{ctx.tag}_tool_rejects_malformed_entries(tmp_path):
    too_few = "0 0 * * *" + (" /bin/true" if USER_FIELD else "")
    for k, bad in enumerate([entry(times) for times in MALFORMED] + [too_few]):
        head = ["# header", "SHELL=/bin/sh", entry("15 */6 * * *")] + ["# more"] * (k % 3)
        path = tmp_path / f"bad{{k}}"
        path.write_text("\\n".join(head + [bad, entry("0 1 * * *")]) + "\\n", encoding="utf-8")
        done = run_tool(TOOL, path, "2026-05-01T00:00", 5, timeout=30)
        assert done.returncode == 2 and done.stdout == b"", bad
        assert re.search(rf"\\b{{len(head) + 1}}\\b", done.stderr.decode("utf-8", "replace")), (bad, done.stderr)
"""
        fields = (
            "five time fields, then the user name, then the command" if user else "five time fields, then the command"
        )
        instruction = (
            f"Next, write a command-line tool `{tool}` (an executable file with a `#!/usr/bin/env python3` line) that "
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
                Artifact(path=tool, kind=Kind.EXECUTABLE, executable=True),
            ],
        )
