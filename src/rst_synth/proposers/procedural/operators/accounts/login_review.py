"""Before the access audit, the old host's sshd log reviewed against the roster: a planted auth log (the roster's
users logging in across midnight, a leaver whose key still works, an account no roster names, scanners over and
just past a brute-force window, `Invalid user` lines that are no failures, cron, sudo and systemd lines) and a tool
the team runs again on the next host's log, whose JSON report counts each user's logins and failures, flags the
leaver's and the stranger's logins and lists the brute-force sources. The tests run it on logs they make up."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.accounts.roster import roster_rows
from rst_synth.proposers.procedural.operators.accounts.shipped import login_review as shipped
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.workflow import fresh_path, inside_git, plant, planted_dir, work_root
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import render

YEAR = 2024  # a leap year: the planted log may run from Feb 28 into Feb 29


@register
class AccountsLoginReview(ToolOperator):
    """A tool that reviews an sshd auth log against the roster, run on the old host's planted log."""

    name = "accounts-login-review"
    purpose = Purpose.TOOL
    kinds = (Kind.CSV,)
    tools = ("python3",)
    weight = 3.0
    once = True  # one old host, one log; the tool is the same program whatever the roster

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
        threshold, window = rng.choice([4, 5, 6]), rng.choice([5, 10, 15])
        text = shipped.auth_log(rng, roster, threshold, window, YEAR)
        root = work_root(ctx.discovery)
        log = fresh_path(ctx, planted_dir(ctx), "oldhost-auth.log")
        tool = fresh_path(ctx, f"{root}/bin", "login-review")
        report = fresh_path(ctx, f"{root}/audit", "login_review.json")
        want = shipped.review(text.splitlines(), roster, YEAR, threshold, window)
        code = render(shipped, ["main"], YEAR=YEAR, THRESHOLD=threshold, WINDOW=window)
        run = f"{q(tool)} --log {q(log)} --roster {q(artifact.path)} --out {q(report)}"
        solution = self.tool_solution(tool, code, "sys.exit(main(sys.argv))", run, report)
        checks = [n for n in dir(shipped) if n.startswith("test_")]
        params = {"TOOL": tool, "LOG": log, "ROSTER": artifact.path, "REPORT": report, "WANT": want}
        tests = render(
            shipped,
            checks,
            tag=ctx.tag,
            SEED=rng.randrange(10**6),
            YEAR=YEAR,
            THRESHOLD=threshold,
            WINDOW=window,
            **params,
        )
        instruction = " ".join(
            f"""Before the access audit, security wants the old host's sshd log `{log}` reviewed against the roster
            `{artifact.path}`, with a tool the team can run again on the next host's log. Write `{tool}`, an
            executable Python 3 script (with a `#!` line) run as `{tool} --log LOG --roster ROSTER --out OUT`: LOG
            is a syslog auth log, ROSTER a CSV file with a header row that has at least the columns `username` and
            `status` (`active` or `left`), and it writes OUT (creating its folder), one JSON object with exactly the
            keys `users` and `brute_force`. A log line is `MMM DD HH:MM:SS HOST PROGRAM: MESSAGE`, MMM an English
            month abbreviation and DD the day of the month padded with a space to two characters; lines carry no
            year: every time is in {YEAR}, the host's local time. Only lines whose PROGRAM is `sshd[PID]` (PID
            digits) count, and of those only a MESSAGE that starts `Accepted METHOD for USER from IP port PORT` (a
            successful login of USER from the source IP) or `Failed METHOD for USER from IP port PORT` or `Failed
            METHOD for invalid user USER from IP port PORT` (a failure of USER from IP), whatever follows PORT;
            every other line is ignored, the `Invalid user USER from IP port PORT` lines too (sshd writes one
            before the failure of a name without an account: it is no failure of its own). `users` maps a username
            to an object with exactly the keys `accepted` (its number of successful logins), `failed` (its number
            of failures), `last_accepted` (the time of its latest successful login as `YYYY-MM-DDTHH:MM:SS`, or
            null when it has none) and `flag`: `left` when its roster row's `status` is `left` and it has a
            successful login, `not_in_roster` when the roster has no row of that username, else null. `users`
            holds every username of the roster with at least one successful login or failure and every other
            name with at least one successful login, and no others. `brute_force` lists every source IP with
            at least {threshold} failures within {window} minutes ({threshold} of its failures of which the last
            is at most {window * 60} seconds after the first, so failures exactly {window} minutes apart count),
            each as an object with exactly the
            keys `source` (the IP), `first_failure` (the time of its earliest failure in the log, as
            `YYYY-MM-DDTHH:MM:SS`) and `failures` (the number of all its failures in the log), sorted by
            `first_failure` and then by `source` in code-point order. A missing option, or a log or roster that
            cannot be read, makes it print an error to standard error, nothing to standard output, and exit with
            status 2. Then run it on `{log}` and `{artifact.path}` to write the report `{report}`.""".split()
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile=plant(log, text),
            produces=[
                Artifact(path=report, kind=Kind.JSON, details={"type": "object"}, end_result=True),
                self.executable(tool),
            ],
        )
