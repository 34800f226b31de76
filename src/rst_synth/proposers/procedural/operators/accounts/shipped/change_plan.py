"""What `accounts-change-plan` ships: the planning tool (`main`: an HR roster and group list compared with an
account database in passwd and group format, giving the actions that bring the database in line and the rows
that cannot be applied) and the tests, which check the saved plan of the planted roster against the live
database and run the tool on rosters and databases they make up. The constants are the step's parameters:
`shipping.render` sets them."""

from __future__ import annotations

import csv
import json
import pathlib
import random
import sys
from typing import Any

from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, run_tool

TOOL = "/app/bin/roster_plan"
ROSTER = "/app/incoming/r1s1/roster_next.csv"
GROUPS = "/app/incoming/r1s1/groups_next.csv"
OUT = "/app/derived/roster_next_plan.json"
SEED = 1
ROSTER_COLUMNS = ("username", "uid", "full_name", "team", "extra_groups", "status")


class PlanError(Exception):
    pass


def read_csv(path: Any, columns: tuple[str, ...]) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if rows and not set(columns) <= set(rows[0]):
        raise PlanError(str(path) + ": missing columns")
    return rows


def number(text: str, what: str) -> int:
    if not text.isdigit():
        raise PlanError(what + ": not a number: " + text)
    return int(text)


def database(passwd: Any, group: Any) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """Accounts (name -> uid, gid, comment) and groups (name -> gid, members) of passwd and group files."""
    users, groups = {}, {}
    for line in pathlib.Path(passwd).read_text(encoding="utf-8").splitlines():
        if line.strip():
            f = line.split(":")
            if len(f) != 7:
                raise PlanError("passwd: bad line: " + line)
            users[f[0]] = {"uid": number(f[2], "uid"), "gid": number(f[3], "gid"), "comment": f[4].split(",")[0]}
    for line in pathlib.Path(group).read_text(encoding="utf-8").splitlines():
        if line.strip():
            f = line.split(":")
            if len(f) != 4:
                raise PlanError("group: bad line: " + line)
            groups[f[0]] = {"gid": number(f[2], "gid"), "members": {m for m in f[3].split(",") if m}}
    return users, groups


def plan(roster_path: Any, groups_path: Any, passwd: Any, group: Any) -> dict[str, list[dict[str, Any]]]:
    rows = read_csv(roster_path, ROSTER_COLUMNS)
    wanted = {r["group"]: number(r["gid"], "gid") for r in read_csv(groups_path, ("group", "gid"))}
    users, groups = database(passwd, group)
    actions: list[dict[str, Any]] = []
    problems: list[dict[str, Any]] = []
    for name, gid in wanted.items():
        if name not in groups:
            actions.append({"action": "add_group", "group": name, "gid": gid})
        elif groups[name]["gid"] != gid:
            actions.append({"action": "set_gid", "group": name, "gid": gid})
    by_uid = {u["uid"]: name for name, u in users.items()}
    by_gid = {g["gid"]: name for name, g in groups.items()}
    for row in rows:
        user, uid = row["username"], number(row["uid"], "uid")
        if row["status"] not in ("active", "left"):
            raise PlanError(user + ": status " + row["status"])
        if row["status"] == "left":
            if user in users:
                actions.append({"action": "remove_user", "user": user})
            continue
        extras = sorted({g for g in row["extra_groups"].split(";") if g})
        unknown = sorted(g for g in {row["team"], *extras} if g not in wanted and g not in groups)
        if unknown:
            problems += [{"user": user, "problem": "unknown_group", "group": g} for g in unknown]
            continue
        holder = by_uid.get(uid)
        if holder is not None and holder != user:
            problems.append({"user": user, "problem": "uid_taken", "by": holder})
            continue
        if user not in users:
            actions.append(
                {
                    "action": "add_user",
                    "user": user,
                    "uid": uid,
                    "primary": row["team"],
                    "groups": extras,
                    "comment": row["full_name"],
                }
            )
            continue
        account = users[user]
        if account["uid"] != uid:
            actions.append({"action": "set_uid", "user": user, "uid": uid})
        if by_gid.get(account["gid"]) != row["team"]:
            actions.append({"action": "set_primary", "user": user, "group": row["team"]})
        if account["comment"] != row["full_name"]:
            actions.append({"action": "set_comment", "user": user, "comment": row["full_name"]})
        member_of = {name for name, g in groups.items() if user in g["members"]} - {row["team"]}
        actions += [{"action": "add_to_group", "user": user, "group": g} for g in extras if g not in member_of]
        actions += [{"action": "remove_from_group", "user": user, "group": g} for g in sorted(member_of - set(extras))]
    return {"actions": actions, "problems": problems}


def main(argv: list[str]) -> int:
    if len(argv) != 5:
        print("usage: " + argv[0] + " ROSTER GROUPS PASSWD GROUPFILE", file=sys.stderr)
        return 2
    try:
        found = plan(*argv[1:])
    except (OSError, UnicodeDecodeError, ValueError, KeyError, csv.Error, PlanError) as exc:
        print("error: " + " ".join(str(exc).split()), file=sys.stderr)
        return 2
    sys.stdout.write(json.dumps(found, indent=2, ensure_ascii=False) + "\n")
    return 1 if found["problems"] else 0


def canonical(found: Any) -> dict[str, list[str]]:
    """A plan with its lists in a fixed order: the order of actions and problems is free."""
    assert isinstance(found, dict) and set(found) == {"actions", "problems"}, found
    return {key: sorted(json.dumps(item, sort_keys=True) for item in found[key]) for key in found}


NAMES = ("ana", "bo", "cyd", "dee", "eli", "fay", "gus", "hal", "ivy", "jo", "kai", "lu")
TEAMS = ("alpha", "beta", "gamma")
EXTRAS = ("ops", "vpn", "reports", "audit")


def fresh_case(rng: random.Random, root: pathlib.Path) -> list[pathlib.Path]:
    """A roster, a group list and a database drawn so that every rule of the plan meets its case now and then."""
    gids = {g: 4000 + k for k, g in enumerate(TEAMS + EXTRAS)}
    listed = {g: gid for g, gid in gids.items() if rng.random() < 0.85}
    present = {g: (gid if rng.random() < 0.85 else gid + 50) for g, gid in gids.items() if rng.random() < 0.7}
    present["users"] = 100
    members: dict[str, set[str]] = {g: set() for g in present}
    passwd = ["root:x:0:0:root:/root:/bin/bash"]
    roster = [",".join(ROSTER_COLUMNS)]
    held: set[int] = set()
    for k, name in enumerate(rng.sample(NAMES, rng.randint(3, len(NAMES)))):
        uid, team = 3000 + k, rng.choice(TEAMS)
        extras = rng.sample(EXTRAS, rng.randint(0, 2))
        full = rng.choice(["Ana Lima", "Bo Chen", "Zoë Ørsted", "Dee Dee"])
        roster.append(f"{name},{uid},{full},{team},{';'.join(extras)},{rng.choice(['active'] * 4 + ['left'])}")
        if rng.random() < 0.6:
            gid = present.get(rng.choice([team, team, "users"]), 100)
            gecos = rng.choice([full, full + ",,,", "Someone Else"])
            own = uid if rng.random() < 0.85 else uid + 500
            held.add(own)
            passwd.append(f"{name}:x:{own}:{gid}:{gecos}:/home/{name}:/bin/bash")
            # `present` can hold only `users` and one team: draw no more groups than it has
            for g in rng.sample(sorted(present), rng.randint(0, min(3, len(present)))):
                members[g].add(name)
    free = [3000 + k for k in range(len(roster) - 1) if 3000 + k not in held]
    if free and rng.random() < 0.6:  # an account outside the roster holding a roster row's UID
        passwd.append(f"svc:x:{rng.choice(free)}:100:service:/srv:/usr/sbin/nologin")
    group = [f"{g}:x:{gid}:{','.join(sorted(members[g]))}" for g, gid in present.items()]
    groups = ["group,gid"] + [f"{g},{gid}" for g, gid in listed.items()]
    files = []
    for name, lines in (("roster.csv", roster), ("groups.csv", groups), ("passwd", passwd), ("group", group)):
        path = root / name
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        files.append(path)
    return files


def test_saved_plan_of_the_planted_roster() -> None:
    want = plan(ROSTER, GROUPS, "/etc/passwd", "/etc/group")
    assert want["actions"] and want["problems"]
    got = json.loads(pathlib.Path(OUT).read_text(encoding="utf-8"))
    assert canonical(got) == canonical(want)


def test_tool_on_fresh_rosters(tmp_path: pathlib.Path) -> None:
    rng = random.Random(SEED)
    for k in range(25):
        root = tmp_path / f"case{k}"
        root.mkdir()
        files = fresh_case(rng, root)
        want = plan(*files)
        done = run_tool(TOOL, *files)
        assert done.returncode == (1 if want["problems"] else 0), (k, done.returncode, done.stderr[-300:])
        assert canonical(json.loads(done.stdout)) == canonical(want), (k, done.stdout[-800:])


def test_tool_refuses_bad_input(tmp_path: pathlib.Path) -> None:
    rng = random.Random(SEED + 1)
    roster, groups, passwd, group = fresh_case(rng, tmp_path)
    bad_status = tmp_path / "status.csv"
    bad_status.write_text(",".join(ROSTER_COLUMNS) + "\nzed,3100,Zed,alpha,,away\n", encoding="utf-8")
    bad_uid = tmp_path / "uid.csv"
    bad_uid.write_text(",".join(ROSTER_COLUMNS) + "\nzed,-4,Zed,alpha,,active\n", encoding="utf-8")
    no_column = tmp_path / "columns.csv"
    no_column.write_text("username,uid\nzed,3100\n", encoding="utf-8")
    for args in (
        [roster, groups, passwd],
        [bad_status, groups, passwd, group],
        [bad_uid, groups, passwd, group],
        [no_column, groups, passwd, group],
        [roster, groups, tmp_path / "missing", group],
    ):
        assert_usage_error(run_tool(TOOL, *args), args)
