"""Before the old host is retired, its password-aging state reviewed against the roster: a planted snapshot of its
shadow file (a password and an account expiring on the as-of day, `lastchg` 0, an empty `max` and 99999, a warning
window's last day, the last inactive day run out, a password changed on a Feb 29, an empty hash, a leaver whose
password still works and one locked with `!`, system accounts locked with `*`, accounts no roster names) and a tool
security runs again on the next host's shadow file, whose JSON report gives each account's status and days left,
flags the leaver and the strangers and counts statuses per team. The tests run it on shadow files they make up."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.accounts.roster import roster_rows
from rst_synth.proposers.procedural.operators.accounts.shipped import password_aging as shipped
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.workflow import fresh_path, inside_git, plant, planted_dir, work_root
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import render


@register
class AccountsPasswordAging(ToolOperator):
    """A tool that reviews a shadow file's password aging against the roster, run on the old host's snapshot."""

    name = "accounts-password-aging"
    purpose = Purpose.TOOL
    kinds = (Kind.CSV,)
    tools = ("python3",)
    weight = 3.0
    once = True  # one old host, one shadow file; the tool is the same program whatever the roster

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
        roster = {r["username"]: (r["team"], r["status"]) for r in rows}
        as_of = shipped.as_of_date(rng)
        text = shipped.shadow_file(rng, roster, as_of)
        root = work_root(ctx.discovery)
        shadow = fresh_path(ctx, planted_dir(ctx), "oldhost-shadow")
        tool = fresh_path(ctx, f"{root}/bin", "password-aging")
        report = fresh_path(ctx, f"{root}/audit", "password_aging.json")
        want = shipped.review(text, roster, as_of)
        code = render(shipped, ["main"])
        run = f"{q(tool)} --shadow {q(shadow)} --roster {q(artifact.path)} --as-of {as_of} --out {q(report)}"
        solution = self.tool_solution(tool, code, "sys.exit(main(sys.argv))", run, report)
        checks = [n for n in dir(shipped) if n.startswith("test_")]
        params = {"TOOL": tool, "SHADOW": shadow, "ROSTER": artifact.path, "REPORT": report, "WANT": want}
        tests = render(shipped, checks, tag=ctx.tag, SEED=rng.randrange(10**6), **params)
        statuses = ", ".join(f"`{s}`" for s in shipped.STATUSES)
        instruction = " ".join(
            f"""Before the old host is retired, security wants its password-aging state reviewed against the
            roster `{artifact.path}`: `{shadow}` is a snapshot of its `/etc/shadow`, and they will run the same
            tool on the next host's shadow file. Write `{tool}`, an executable Python 3 script (with a `#!` line)
            run as `{tool} --shadow SHADOW --roster ROSTER --as-of YYYY-MM-DD --out OUT`: ROSTER is a CSV file
            with a header row that has at least the columns `username`, `team` and `status` (`active` or
            `left`); in SHADOW empty lines are ignored and every other line is nine `:`-separated fields
            `name:hash:lastchg:min:max:warn:inactive:expire:reserved`, of which `lastchg`, `min`, `max`, `warn`,
            `inactive` and `expire` are each empty or ASCII digits (`lastchg` and `expire` are day numbers, day 0
            being 1970-01-01; `max`, `warn` and `inactive` are numbers of days; `min` and `reserved` are not
            used). The as-of day is the day number of the `--as-of` date. It writes OUT (creating its folder), one
            JSON object with exactly the keys `accounts` and `teams`. `accounts` maps each name of SHADOW that is
            a roster `username`, and each other name whose hash does not start with `!` or `*` (an empty hash
            included), to an object with exactly the keys `status`, `days_left`, `expires_on` and `flag`. When
            `lastchg` is a number other than 0 and `max` a number below {shipped.NEVER}, the password's expiry day
            is `lastchg` + `max`, `days_left` is the expiry day minus the as-of day (an integer, negative once
            past, whatever the status) and `expires_on` the expiry day as a date `YYYY-MM-DD`; otherwise both are
            null. `status` is the first of these that holds: `locked` when the hash starts with `!` or `*`;
            `no_password` when the hash is empty; `account_expired` when `expire` is not empty and at most the
            as-of day (an account expiring on the as-of day is expired); `must_change` when `lastchg` is 0;
            `never_expires` when the password has no expiry day (`lastchg` or `max` empty, or `max` at least
            {shipped.NEVER}); `inactive` when `inactive` is not empty and `days_left` + `inactive` is 0 or less
            (the as-of day is at least the expiry day plus `inactive` days); `expired` when `days_left` is 0 or
            less (a password expiring on the as-of day is expired); `warning` when `warn` is not empty and
            `days_left` is at most `warn`; else `ok`. `flag` is `left` when the name's roster row has `status`
            `left` and the account's status is none of `locked`, `account_expired` and `inactive` (the leaver can
            still log in: an expired password is changed at login), `not_in_roster` when the roster has no row
            of that name, else null. `teams` maps each roster `team` with at least one of its usernames in
            `accounts` to an object with exactly the nine statuses ({statuses}) as keys, each the number of the
            team's usernames in `accounts` with that status (0 when none); names the roster lacks count in no
            team. A missing option, an `--as-of` that is not a valid date written `YYYY-MM-DD`, a line of SHADOW
            that is not empty and not of that format, or a shadow file or roster that cannot be read (or lacks
            one of those columns) makes it print an error to standard error, nothing to standard output, and
            exit with status 2. Then run it on `{shadow}` and `{artifact.path}` with the as-of date {as_of} to
            write the report `{report}`.""".split()
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile=plant(shadow, text),
            produces=[
                Artifact(path=report, kind=Kind.JSON, details={"type": "object"}, end_result=True),
                self.executable(tool),
            ],
        )
