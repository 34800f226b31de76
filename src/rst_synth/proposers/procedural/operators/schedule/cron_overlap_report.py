"""Overlapping jobs: the lineage's cron schedule and another team's maintenance schedule run side by side;
with each job's stated duration, a tool lists every pair of runs in a window that overlap (a job still
running when another, or its own next run, starts) and by how many minutes. The tests run the tool on
schedules and durations they generate, against the cron rules of the reference."""

from __future__ import annotations

import datetime

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.workflow import (
    RUN_TOOL,
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
    NEXT_RUNS_PY,
    commands,
    fires,
    schedule_entries,
)

OVERLAP_PY = r"""
class MissingDuration(Exception):
    pass


def commands(text, user_field):
    found = {}
    skip = 6 if user_field else 5
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#") and not ASSIGNMENT.match(stripped):
            match = re.match(r"(\S+\s+){%d}(.*)$" % skip, stripped)
            found[number] = match[2].strip() if match else ""
    return found


def durations_of(text):
    found = {}
    for line in text.split("\n"):
        if not line.strip() or line.strip().startswith("#"):
            continue
        match = re.fullmatch(r"\s*([0-9]+)\s+(.*?)\s*", line)
        if match is None or int(match[1]) < 1:
            raise ValueError("bad duration line: " + line)
        found[match[2]] = int(match[1])
    return found


def overlaps(files, durations, start, end):
    runs = []
    for position, (name, text) in enumerate(files):
        user_field = name.startswith("/etc/cron.d/") or name == "/etc/crontab"
        try:
            entries = cron_entries(text, user_field)
        except MalformedEntry as bad:
            raise MalformedEntry(f"{name}:{bad.args[0]}")
        texts = commands(text, user_field)
        for entry in entries:
            if texts[entry[0]] not in durations:
                raise MissingDuration(f"{name}:{entry[0]}")
            minutes = durations[texts[entry[0]]]
            for when, number in entry_runs(entry, start - datetime.timedelta(minutes=1), end.date()):
                if when >= end:
                    break
                runs.append((when, position, number, minutes, name))
    runs.sort()
    lines = []
    for k, (when, _, number, minutes, name) in enumerate(runs):
        finish = when + datetime.timedelta(minutes=minutes)
        for other, _, other_number, other_minutes, other_name in runs[k + 1:]:
            if other >= finish:
                break
            shared = min(finish, other + datetime.timedelta(minutes=other_minutes)) - other
            lines.append(f"{when:%Y-%m-%dT%H:%M} {name}:{number} {other:%Y-%m-%dT%H:%M} {other_name}:{other_number} "
                         f"{int(shared.total_seconds() // 60)}")
    return lines
"""

TOOL_MAIN = r"""
def main(argv):
    try:
        durations_file, start, end, *files = argv[1:]
        start = datetime.datetime.strptime(start, "%Y-%m-%dT%H:%M")
        end = datetime.datetime.strptime(end, "%Y-%m-%dT%H:%M")
        if not files or end <= start:
            raise ValueError(argv)
        with open(durations_file, encoding="utf-8") as f:
            durations = durations_of(f.read())
        texts = []
        for name in files:
            with open(name, encoding="utf-8") as f:
                texts.append((name, f.read()))
        lines = overlaps(texts, durations, start, end)
    except (ValueError, OSError) as exc:
        print("usage: " + argv[0] + " DURATIONS START END FILE... (" + str(exc) + ")", file=sys.stderr)
        return 2
    except (MalformedEntry, MissingDuration) as exc:
        kind = "malformed cron entry" if isinstance(exc, MalformedEntry) else "no duration for the entry"
        print(f"{exc.args[0]}: {kind}", file=sys.stderr)
        return 2
    sys.stdout.write("".join(line + "\n" for line in lines))
    return 0


sys.exit(main(sys.argv))
"""

FRESH_PY = r"""
COMMANDS = ["run-a.sh", "backup.sh --full", "x/run  --twice", "true"]


def fresh_case(rng, folder, k):
    files = []
    for n in range(rng.randint(1, 3)):
        lines = []
        for _ in range(rng.randint(1, 3)):
            if rng.random() < 0.3:
                lines.append(rng.choice(["# comment", "", "MAILTO=ops"]))
            minute = rng.choice(["0", "*/20", "15,45", "5-50/15", str(rng.randint(0, 59))])
            hour = rng.choice(["*", "*/6", "0-6", "9,13", str(rng.randint(0, 23))])
            weekday = rng.choice(["*", "*", "1-5", "0", "7"])
            lines.append(f"{minute} {hour} * * {weekday}\t{rng.choice(COMMANDS)}")
        path = folder / f"case{k}-{n}.cron"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        files.append(str(path))
    durations = folder / f"case{k}.durations"
    durations.write_text("# minutes command\n" + "".join(f"{rng.randint(1, 400)} {c}\n" for c in COMMANDS),
                         encoding="utf-8")
    start = datetime.datetime(2026, 1, 1) + datetime.timedelta(minutes=rng.randrange(300 * 1440))
    end = start + datetime.timedelta(minutes=rng.choice([90, 1440, 3 * 1440]))
    return str(durations), f"{start:%Y-%m-%dT%H:%M}", f"{end:%Y-%m-%dT%H:%M}", files
"""

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
class CronOverlapReport(Operator):
    """Runs of two schedules that overlap in a week, given each job's duration, listed by a tool."""

    name = "cron-overlap-report"
    final = True  # a report of run pairs: an end result
    once = True  # the tool is the same program whatever the schedule: a second step would copy it
    kinds = (Kind.TEXT,)
    tools = ("python3",)
    weight = 3.0

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
        solution = f"""mkdir -p {q(tool.rsplit("/", 1)[0])} {q(out.rsplit("/", 1)[0])}
cat > {q(tool)} <<'PY'
#!/usr/bin/env python3
import datetime, heapq, itertools, re, sys

{NEXT_RUNS_PY.strip()}

{OVERLAP_PY.strip()}

{TOOL_MAIN.strip()}
PY
chmod 0755 {q(tool)}
{q(tool)} {q(durations_file)} {start} {end} {q(artifact.path)} {q(other)} > {q(out)}"""
        tests = f"""
TOOL, SRC, OTHER, DURATIONS, OUT = {tool!r}, {artifact.path!r}, {other!r}, {durations_file!r}, {out!r}
START, END, SEED = {start!r}, {end!r}, {seed}
{NEXT_RUNS_PY}{OVERLAP_PY}{FRESH_PY}{RUN_TOOL}

def expected(durations, start, end, files):
    texts = [(name, pathlib.Path(name).read_text(encoding="utf-8")) for name in files]
    durations = durations_of(pathlib.Path(durations).read_text(encoding="utf-8"))
    when = [datetime.datetime.strptime(t, "%Y-%m-%dT%H:%M") for t in (start, end)]
    return "".join(line + "\\n" for line in overlaps(texts, durations, *when))


def test_{ctx.tag}_overlaps_of_the_week():
    want = expected(DURATIONS, START, END, [SRC, OTHER])
    assert want
    assert pathlib.Path(OUT).read_text(encoding="utf-8") == want


def test_{ctx.tag}_tool_on_fresh_schedules(tmp_path):
    rng = random.Random(SEED)
    for k in range(6):
        durations, start, end, files = fresh_case(rng, tmp_path, k)
        done = run_tool(TOOL, durations, start, end, *files, timeout=60)
        assert done.returncode == 0, done.stderr[-500:]
        assert done.stdout.decode("utf-8") == expected(durations, start, end, files), (start, end, files)


def test_{ctx.tag}_tool_rejects_bad_input(tmp_path):
    schedule = tmp_path / "jobs.cron"
    schedule.write_text("# jobs\\n0 * * * * /bin/a\\n*/0 * * * * /bin/b\\n", encoding="utf-8")
    durations = tmp_path / "d.txt"
    durations.write_text("5 /bin/a\\n5 /bin/b\\n", encoding="utf-8")
    done = run_tool(TOOL, durations, "2026-01-01T00:00", "2026-01-02T00:00", schedule)
    assert done.returncode == 2 and done.stdout == b"" and str(schedule).encode() + b":3" in done.stderr
    schedule.write_text("0 * * * * /bin/a\\n30 1 * * * /bin/c\\n", encoding="utf-8")
    done = run_tool(TOOL, durations, "2026-01-01T00:00", "2026-01-02T00:00", schedule)
    assert done.returncode == 2 and done.stdout == b"" and str(schedule).encode() + b":2" in done.stderr
    for args in ([durations, "2026-01-02T00:00", "2026-01-01T00:00", schedule], [durations, "x", "y", schedule],
                 [durations, "2026-01-01T00:00", "2026-01-02T00:00"]):
        done = run_tool(TOOL, *args)
        assert done.returncode == 2 and done.stdout == b"", args
"""
        instruction = " ".join(
            f"""Next, another team adds its maintenance jobs in `{other}` (a schedule without a user field); the
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
            produces=[Artifact(path=out, kind=Kind.TEXT), Artifact(path=tool, kind=Kind.EXECUTABLE, executable=True)],
        )
