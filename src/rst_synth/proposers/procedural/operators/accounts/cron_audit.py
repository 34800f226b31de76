"""Before the cutover to the new host, the old host's cron jobs audited against the roster and the maintenance
window: a planted crontab spool (one file per user: the roster's people, a leaver, an account no roster names,
with settings, comments, a commented-out job and blank lines between the jobs) whose schedules put each cron rule
to the test in the window (steps from a range's start, lists, month and weekday names, weekday 7, both day
fields restricted, nicknames, `@reboot`, a job at the window's end), and a tool the migration team runs again on
the next host's spool, whose JSON report lists each job's runs in the window, flags the leaver's and the
stranger's jobs and counts the runs per owner. The tests run it on spools and windows they make up."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.accounts.roster import roster_rows
from rst_synth.proposers.procedural.operators.accounts.shipped import cron_audit as shipped
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.workflow import fresh_path, inside_git, plant, planted_dir, work_root
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import render


@register
class AccountsCronAudit(ToolOperator):
    """A tool that audits a crontab spool over a maintenance window against the roster, run on the old host's."""

    name = "accounts-cron-audit"
    purpose = Purpose.TOOL
    kinds = (Kind.CSV,)
    tools = ("python3",)
    weight = 3.0
    once = True  # one old host, one spool, one window; the tool is the same program whatever the roster

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        rows = roster_rows(artifact)
        root = work_root(discovery)
        return (
            rows is not None
            and any(r["status"] == "left" for r in rows)
            and not any(inside_git(f"{root}/{d}/x", discovery) for d in ("bin", "audit", "incoming"))
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        rows = roster_rows(artifact)
        assert rows is not None  # applies() checked it
        rng = ctx.rng
        roster = {r["username"]: r["status"] for r in rows}
        begin, finish = shipped.window(rng)
        tabs = shipped.crontabs(rng, roster, begin, finish)
        start, end = begin.strftime(shipped.STAMP), finish.strftime(shipped.STAMP)
        root = work_root(ctx.discovery)
        spool = fresh_path(ctx, planted_dir(ctx), "crontabs")
        tool = fresh_path(ctx, f"{root}/bin", "cron-audit")
        report = fresh_path(ctx, f"{root}/audit", "cron_audit.json")
        want = shipped.audit(tabs, roster, begin, finish)
        code = render(shipped, ["main"])
        run = f"{q(tool)} --spool {q(spool)} --roster {q(artifact.path)} --start {start} --end {end} --out {q(report)}"
        solution = self.tool_solution(tool, code, "sys.exit(main(sys.argv))", run, report)
        checks = [n for n in dir(shipped) if n.startswith("test_")]
        params = {"TOOL": tool, "SPOOL": spool, "ROSTER": artifact.path, "REPORT": report, "WANT": want}
        tests = render(shipped, checks, tag=ctx.tag, SEED=rng.randrange(10**6), **params)
        instruction = " ".join(
            f"""Before the cutover to the new host in the maintenance window from {start} to {end} (the host's
            local time), the migration team needs to know which of the old host's cron jobs would fire during the
            window, and which belong to leavers or to accounts the roster `{artifact.path}` does not name, with a
            tool they can run again on the next host's crontab spool. The old host's spool is the folder
            `{spool}`. Write `{tool}`, an executable Python 3 script (with a `#!` line) run as `{tool} --spool DIR
            --roster ROSTER --start START --end END --out OUT`: DIR holds one user crontab per file (no
            subfolders), each named by the username that owns it; ROSTER is a CSV file with a header row that has
            at least the columns `username` and `status` (`active` or `left`); START and END are local times
            `YYYY-MM-DDTHH:MM` and the window is every minute from START up to END, START included and END not
            (no clock changes); and it writes OUT (creating its folder), one JSON object with exactly the keys
            `jobs` and `runs_per_owner`. A crontab's lines are separated by `\\n` and numbered from 1. With its
            leading and trailing spaces and tabs removed, a line that is empty or starts with `#` is ignored (a
            commented-out job too); a line that is a name (a letter or `_`, then letters, digits or `_`),
            optional spaces or tabs, `=` and anything after is an environment setting such as
            `MAILTO=ops@example.com` or `PATH = /usr/bin:/bin`, no job; every other line is a job: five time
            fields (minute 0-59, hour 0-23, day of month 1-31, month 1-12, day of week 0-7) then the command, or
            a nickname then the command, separated by spaces or tabs. The nicknames (lowercase) are `@hourly`
            (`0 * * * *`), `@daily` and `@midnight` (`0 0 * * *`), `@weekly` (`0 0 * * 0`), `@monthly` (`0 0 1 *
            *`), `@yearly` and `@annually` (`0 0 1 1 *`), and `@reboot`, which never fires in a window. The
            command is the rest of the line after the schedule and the blanks that follow it, as written (a `#`,
            `=` or `%` in it is part of it). A field is a comma-separated list of items, each `*` (the field's
            whole range), `N`, `A-B` (A to B, both included, A not above B), `*/S` or `A-B/S`; a step S takes
            every S-th value counting from the start of the range, so `5-59/20` is 5, 25, 45, `1-5/2` is 1, 3, 5
            and a day of month `*/2` is 1, 3, 5, ... 31. A month may be written as `jan` to `dec` and a day of
            week as `sun` to `sat`, in any case, wherever a number goes (`mon-fri`, `Jan,JUL`); day of week 0
            and 7 are both Sunday. A job fires at a minute when its minute, hour and month fields match it and
            its day matches: when the day-of-month field or the day-of-week field starts with `*` (`*` or
            `*/S`), the day must match both; when neither does (both restricted), matching either is enough, so
            `0 3 1 * mon` fires on the 1st of every month and on every Monday, and `0 3 */2 * mon` only on the
            Mondays that fall on an odd day. `jobs` lists every job line of every crontab, sorted by owner
            (code-point order) and then by line number, each as an object with exactly the keys `owner` (the
            file's name), `line` (its line number), `command`, `flag` (`left` when the roster's row of the owner
            has status `left`, `not_in_roster` when the roster has no row of that username, else null) and
            `runs` (every minute of the window at which the job fires, as `YYYY-MM-DDTHH:MM`, in time order;
            empty for `@reboot` and for a job that does not fire in the window). `runs_per_owner` maps every
            owner with at least one job line to the number of runs of all its jobs in the window (0 when none
            fires); an owner whose crontab holds no job is in neither. A missing option, a START or END not of
            the form `YYYY-MM-DDTHH:MM` or no real time, an END not after START, or a spool folder or roster that
            cannot be read, makes it print an error to standard error, nothing to standard output, and exit with
            status 2. Then run it on `{spool}` and `{artifact.path}` for the window from {start} to {end} to
            write the report `{report}`.""".split()
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile="".join(plant(f"{spool}/{owner}", text, "0600") for owner, text in sorted(tabs.items())),
            produces=[
                Artifact(path=report, kind=Kind.JSON, details={"type": "object"}, end_result=True),
                self.executable(tool),
            ],
        )
