"""Backup retention for a scheduled job: the archives the job wrote over five months (one per run, a few
runs missed, a few made by hand) are planted as dated names; a grandfather-father-son retention tool keeps
the newest archive of each of the last N days, weeks and months and deletes the rest. The tests run the
tool on timestamps they generate (ISO week and month boundaries, several archives a day)."""

from __future__ import annotations

import datetime
import re

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.workflow import (
    RUN_TOOL,
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

BACKUP_WORDS = re.compile(r"backup|dump|archive|snapshot|\btar\b|rsync|borg|restic", re.IGNORECASE)
"""A job whose command says it makes backups: the schedule's archives are what retention is about."""
WINDOW_DAYS = 150
MIN_ARCHIVES = 60
MAX_ARCHIVES = 700

RETENTION_PY = r"""
def archives(names):
    pattern = re.compile(re.escape(PREFIX) + r"-([0-9]{8})-([0-9]{4})\.tar\.gz")
    found = []
    for name in names:
        match = pattern.fullmatch(name)
        if match is None:
            continue
        try:
            when = datetime.datetime.strptime(match[1] + match[2], "%Y%m%d%H%M")
        except ValueError:
            continue
        found.append((when, name))
    return sorted(found, reverse=True)


def plan(names, daily, weekly, monthly):
    found = archives(names)
    reasons = {name: [] for _, name in found}
    rules = (("daily", daily, lambda when: when.date()), ("weekly", weekly, lambda when: when.isocalendar()[:2]),
             ("monthly", monthly, lambda when: (when.year, when.month)))
    for rule, count, period in rules:
        seen = []
        for when, name in found:
            if len(seen) >= count:
                break
            if period(when) not in seen:
                seen.append(period(when))
                reasons[name].append(rule)
    return [f"keep {name} {','.join(reasons[name])}" if reasons[name] else f"delete {name}" for _, name in found]
"""

TOOL_MAIN = r"""
def main(argv):
    args = argv[1:]
    delete = bool(args) and args[0] == "--delete"
    args = args[1:] if delete else args
    try:
        folder, daily, weekly, monthly = args
        counts = [int(c) for c in (daily, weekly, monthly) if re.fullmatch(r"[0-9]+", c)]
        if len(counts) != 3 or not os.path.isdir(folder):
            raise ValueError(args)
    except ValueError:
        print("usage: " + argv[0] + " [--delete] DIR DAILY WEEKLY MONTHLY", file=sys.stderr)
        return 2
    lines = plan(os.listdir(folder), *counts)
    if delete:
        for line in lines:
            if line.startswith("delete "):
                os.remove(os.path.join(folder, line[len("delete "):]))
    sys.stdout.write("".join(line + "\n" for line in lines))
    return 0


sys.exit(main(sys.argv))
"""

FRESH_PY = r"""
def fresh_names(seed):
    rng = random.Random(seed)
    start = datetime.datetime(rng.choice([2025, 2026]), rng.choice([11, 12]), rng.randint(1, 28), 0, 0)
    names = {"README", PREFIX + "-latest.tar.gz", PREFIX + "-20260230-0100.tar.gz", PREFIX + "-20260101-2460.tar.gz",
             "other-20260101-0100.tar.gz", PREFIX + "-20260101-0100.tar.gz.part", PREFIX + "-2026010-0100.tar.gz"}
    when = start
    for _ in range(rng.randint(40, 160)):
        when += datetime.timedelta(minutes=rng.choice([7, 90, 360, 1440, 1440, 2880, 10000]))
        names.add(f"{PREFIX}-{when:%Y%m%d-%H%M}.tar.gz")
    return sorted(names)
"""


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
class BackupRetentionGfs(Operator):
    """Grandfather-father-son retention of the archives a scheduled backup job wrote, as a tool."""

    name = "backup-retention-gfs"
    kinds = (Kind.TEXT,)
    tools = ("python3",)
    weight = 3.0

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
        solution = f"""mkdir -p {q(tool.rsplit("/", 1)[0])} {q(out.rsplit("/", 1)[0])}
cat > {q(tool)} <<'PY'
#!/usr/bin/env python3
import datetime, os, re, sys

PREFIX = {prefix!r}
{RETENTION_PY.strip()}

{TOOL_MAIN.strip()}
PY
chmod 0755 {q(tool)}
{q(tool)} --delete {q(folder)} {daily} {weekly} {monthly} > {q(out)}"""
        tests = f"""
TOOL, FOLDER, OUT, PREFIX, SEED = {tool!r}, {folder!r}, {out!r}, {prefix!r}, {seed}
COUNTS, ORIGINAL = {(daily, weekly, monthly)!r}, {names!r}
{RETENTION_PY}{FRESH_PY}{RUN_TOOL}

def test_{ctx.tag}_plan_of_the_archives():
    lines = plan(ORIGINAL, *COUNTS)
    assert any(line.startswith("delete ") for line in lines)
    assert pathlib.Path(OUT).read_text(encoding="utf-8") == "".join(line + "\\n" for line in lines)


def test_{ctx.tag}_pruned_archives_deleted():
    gone = {{line.split()[1] for line in plan(ORIGINAL, *COUNTS) if line.startswith("delete ")}}
    assert sorted(os.listdir(FOLDER)) == sorted(set(ORIGINAL) - gone)


def test_{ctx.tag}_tool_on_fresh_timestamps(tmp_path):
    rng = random.Random(SEED)
    for k in range(6):
        names = fresh_names(SEED + k)
        counts = [rng.choice([0, 1, 2, 3, 7]), rng.choice([0, 1, 2, 5]), rng.choice([0, 1, 3, 12])]
        folder = tmp_path / f"backups{{k}}"
        folder.mkdir()
        for name in names:
            (folder / name).write_text(name, encoding="utf-8")
        want = "".join(line + "\\n" for line in plan(names, *counts))
        done = run_tool(TOOL, folder, *counts)
        assert done.returncode == 0, done.stderr[-500:]
        assert done.stdout.decode("utf-8") == want, (names, counts)
        assert sorted(os.listdir(folder)) == names
        done = run_tool(TOOL, "--delete", folder, *counts)
        assert done.returncode == 0 and done.stdout.decode("utf-8") == want
        gone = {{line.split()[1] for line in plan(names, *counts) if line.startswith("delete ")}}
        assert sorted(os.listdir(folder)) == sorted(set(names) - gone)


def test_{ctx.tag}_tool_rejects_bad_arguments(tmp_path):
    for args in ([tmp_path, 1, 2], [tmp_path, 1, 2, "x"], [tmp_path, -1, 2, 3], [tmp_path / "none", 1, 2, 3]):
        done = run_tool(TOOL, *args)
        assert done.returncode == 2 and done.stdout == b"" and done.stderr.strip(), args
"""
        instruction = " ".join(
            f"""Next, the job scheduled in `{artifact.path}` writes one backup archive per run; the archives of the
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
                Artifact(path=tool, kind=Kind.EXECUTABLE, executable=True),
            ],
        )
