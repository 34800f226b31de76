"""What `accounts-password-aging` ships: the tool (`main`: a shadow file's password-aging state on an as-of day,
reviewed against the roster, each account's status decided in a fixed order, the leavers who can still log in and
the accounts no roster names flagged, statuses counted per team), the reference review it runs (`review`), the
shadow files the step plants and the tests make up (`shadow_file`, `fresh_roster`, `as_of_date`), and the tests
that compare the saved report and the tool's reports on made-up shadow files with the reference. The constants are
the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import argparse
import calendar
import csv
import datetime
import json
import pathlib
import random
import re
import string
import sys
from typing import Any

from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, run_tool

TOOL = "/app/bin/password-aging"
SHADOW = "/app/incoming/s1/oldhost-shadow"
ROSTER = "/app/onboarding/roster.csv"
REPORT = "/app/audit/password_aging.json"
SEED = 1234
WANT: dict[str, Any] = {"accounts": {}, "teams": {}}
"""The review of the planted shadow file on the step's as-of date, worked out when the step was built."""

EPOCH = datetime.date(1970, 1, 1)
"""Day 0 of the shadow file's day numbers."""
NEVER = 99999
"""A `max` this large means the password never has to change (what `useradd` writes by default)."""
STATUSES = (
    "locked",
    "no_password",
    "account_expired",
    "must_change",
    "never_expires",
    "inactive",
    "expired",
    "warning",
    "ok",
)
USABLE = ("no_password", "must_change", "never_expires", "expired", "warning", "ok")
"""Statuses whose password still logs in: an expired one is changed at login, before the inactive days run out."""
NUMBERS = ("lastchg", "min", "max", "warn", "inactive", "expire")
DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
FIELD = re.compile(r"[0-9]*")
ROSTER_HEADER = ("username", "uid", "full_name", "team", "extra_groups", "status")
PEOPLE = ("amoreau", "bkeller", "cnguyen", "dsilva", "eokafor", "fhansen", "gbrown", "hlee", "iward", "jtanaka")
TEAMS = ("analytics", "platform", "support")
OUTSIDERS = ("deploy", "ansible", "jenkins", "svc-report", "oracle", "build", "temp", "vendor")
"""Accounts of the old host with a password that no roster names: each one is a finding."""
SYSTEM = ("daemon", "bin", "sys", "sync", "man", "mail", "www-data", "nobody", "messagebus", "sshd")
SALT = string.ascii_letters + string.digits + "./"
MUST = ("due_today", "expires_today", "must_change", "no_max", "never", "warn_edge", "inactive_edge", "leap", "empty")
"""The edges every planted shadow file holds: a password and an account expiring on the as-of day, `lastchg` 0, an
empty `max` and 99999, `days_left` equal to `warn`, the last inactive day just run out, a password changed on a Feb
29, an empty hash."""
EXTRA = ("ok", "past_warn", "due_tomorrow", "inactive_eve", "expires_tomorrow", "ok")
"""The other side of each boundary, and plain accounts."""


def parse_shadow(text: str) -> list[tuple[str, str, dict[str, int | None]]]:
    """Each entry's name, hash and numeric fields (None where empty); ValueError on a line that is no entry."""
    entries = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line:
            continue
        fields = line.split(":")
        if len(fields) != 9 or not all(FIELD.fullmatch(f) for f in fields[2:8]):
            raise ValueError(f"line {number} is not a shadow entry of nine fields")
        numbers = {k: int(fields[2 + i]) if fields[2 + i] else None for i, k in enumerate(NUMBERS)}
        entries.append((fields[0], fields[1], numbers))
    return entries


def aging(hash_: str, f: dict[str, int | None], day: int) -> tuple[str, int | None]:
    """An entry's status on day number `day` (the first rule that holds) and its days left, None without expiry."""
    lastchg, most, inactive, warn = f["lastchg"], f["max"], f["inactive"], f["warn"]
    left = lastchg + most - day if lastchg and most is not None and most < NEVER else None
    if hash_[:1] in ("!", "*"):
        return "locked", left
    if not hash_:
        return "no_password", left
    if f["expire"] is not None and f["expire"] <= day:
        return "account_expired", left
    if lastchg == 0:
        return "must_change", left
    if left is None:
        return "never_expires", left
    if inactive is not None and left + inactive <= 0:
        return "inactive", left
    if left <= 0:
        return "expired", left
    if warn is not None and left <= warn:
        return "warning", left
    return "ok", left


def review(text: str, roster: dict[str, tuple[str, str]], as_of: str) -> dict[str, Any]:
    """The report of a shadow file against a roster (username -> (team, status)) on the as-of date."""
    day = (datetime.date.fromisoformat(as_of) - EPOCH).days
    accounts: dict[str, dict[str, Any]] = {}
    teams: dict[str, dict[str, int]] = {}
    for name, hash_, fields in parse_shadow(text):
        person = roster.get(name)
        if person is None and hash_[:1] in ("!", "*"):
            continue  # a system account without a password: nothing to review
        status, left = aging(hash_, fields, day)
        flag = None
        if person is None:
            flag = "not_in_roster"
        elif person[1] == "left" and status in USABLE:
            flag = "left"
        expires = None if left is None else (EPOCH + datetime.timedelta(days=day + left)).isoformat()
        accounts[name] = {"status": status, "days_left": left, "expires_on": expires, "flag": flag}
        if person is not None:
            teams.setdefault(person[0], dict.fromkeys(STATUSES, 0))[status] += 1
    return {"accounts": accounts, "teams": teams}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="password-aging", description="Review password aging against a roster.")
    parser.add_argument("--shadow", required=True)
    parser.add_argument("--roster", required=True)
    parser.add_argument("--as-of", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv[1:])  # a missing option: usage on stderr, exit 2
    try:
        if not DAY.fullmatch(args.as_of):
            raise ValueError(f"--as-of {args.as_of!r} is not written YYYY-MM-DD")
        datetime.date.fromisoformat(args.as_of)  # Feb 30 or month 13: ValueError
        text = pathlib.Path(args.shadow).read_text(encoding="utf-8", errors="replace")
        parse_shadow(text)
        with open(args.roster, newline="", encoding="utf-8") as f:
            roster = {row["username"]: (row["team"], row["status"]) for row in csv.DictReader(f)}
    except (OSError, UnicodeDecodeError, KeyError, ValueError) as error:
        print(f"password-aging: {error}", file=sys.stderr)
        return 2
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(review(text, roster, args.as_of), indent=2) + "\n", encoding="utf-8")
    return 0


def as_of_date(rng: random.Random) -> str:
    """A review date: half the time early in March of a leap year, so that due days and warning windows that
    reach back from it cross Feb 29."""
    if rng.random() < 0.5:
        return datetime.date(rng.choice([2024, 2028]), 3, rng.randrange(1, 11)).isoformat()
    return (datetime.date(2025, 1, 1) + datetime.timedelta(days=rng.randrange(3 * 365))).isoformat()


def password_hash(rng: random.Random) -> str:
    salt = "".join(rng.choice(SALT) for _ in range(16))
    if rng.random() < 0.5:
        return f"$6${salt}${''.join(rng.choice(SALT) for _ in range(86))}"
    return f"$y$j9T${salt}${''.join(rng.choice(SALT) for _ in range(43))}"


def entry_fields(kind: str, rng: random.Random, day: int, leap_day: int) -> list[int | None]:
    """`lastchg, min, max, warn, inactive, expire` of one kind of account on day number `day`."""
    most, warn, inactive = rng.choice([30, 60, 90, 180]), rng.choice([7, 10, 14]), rng.choice([None, 7, 30])
    left = {"due_today": 0, "due_tomorrow": 1, "warn_edge": warn, "past_warn": warn + 1}.get(kind)
    if left is None:
        left = rng.randrange(warn + 2, most)
    expire = rng.choice([None, None, day + rng.randrange(100, 900)])
    if kind in ("inactive_edge", "inactive_eve"):
        inactive = rng.randrange(2, 15)
        left = -inactive if kind == "inactive_edge" else 1 - inactive
    elif kind in ("expires_today", "expires_tomorrow"):
        expire = day if kind == "expires_today" else day + 1
    lastchg = day + left - most
    if kind == "must_change":
        lastchg = 0
    elif kind == "leap":
        lastchg, most, inactive = leap_day, rng.choice([90, 180, 365]), None
    most_field = None if kind == "no_max" else NEVER if kind == "never" else most
    return [lastchg, rng.choice([0, 1]), most_field, warn, inactive, expire]


def shadow_file(rng: random.Random, roster: dict[str, tuple[str, str]], as_of: str) -> str:
    """An old host's shadow file: system accounts locked with `*` or `!`, root locked or not, one active person
    of the roster without an entry, the others and two or more accounts no roster names each given one kind of
    aging (every kind of `MUST` once), a leaver whose password still works, the others locked with a `!` before
    their hash or with an account expired in the past."""
    when = datetime.date.fromisoformat(as_of)
    day = (when - EPOCH).days
    year = next(y for y in range(when.year, 1970, -1) if calendar.isleap(y) and datetime.date(y, 2, 29) < when)
    leap_day = (datetime.date(year, 2, 29) - EPOCH).days
    installed = day - rng.randrange(400, 1500)
    lines = [f"root:{rng.choice(['*', '!', password_hash(rng)])}:{installed}:0:{NEVER}:7:::"]
    for k, name in enumerate(SYSTEM):
        lock = "!!" if k == 3 else "!" if name in ("sshd", "messagebus") else "*"
        lines.append(f"{name}:{lock}:{installed}:0:{NEVER}:7:::")
    active = sorted(n for n, (_, status) in roster.items() if status == "active")
    leavers = sorted(n for n, (_, status) in roster.items() if status == "left")
    rng.shuffle(active)
    rng.shuffle(leavers)
    people = active[1:] if len(active) > 1 else active  # the newest hire has no account on the old host yet
    strangers = rng.sample([n for n in OUTSIDERS if n not in roster], max(2, len(MUST) - len(people)))
    slots = people + strangers
    kinds = [*MUST, *rng.sample(EXTRA, len(EXTRA))][: len(slots)]
    kinds += [rng.choice(EXTRA) for _ in range(len(slots) - len(kinds))]
    rng.shuffle(kinds)
    entries = []
    for name, kind in zip(slots, kinds, strict=True):
        entries.append((name, "" if kind == "empty" else password_hash(rng), entry_fields(kind, rng, day, leap_day)))
    for k, name in enumerate(leavers):
        fields = entry_fields(rng.choice(["ok", "warn_edge", "never", "due_today"]), rng, day, leap_day)
        if k == 0:  # the leaver's password still works: a finding
            entries.append((name, password_hash(rng), fields))
        elif k % 2:  # `passwd -l` put a `!` before the hash
            entries.append((name, "!" + password_hash(rng), fields))
        else:  # `usermod -e` expired the account, the password left as it was
            entries.append((name, password_hash(rng), [*fields[:5], day - rng.randrange(1, 60)]))
    rng.shuffle(entries)
    for name, hash_, fields in entries:
        lines.append(":".join([name, hash_, *("" if v is None else str(v) for v in fields), ""]))
    return "".join(line + "\n" for line in lines)


def fresh_roster(rng: random.Random) -> dict[str, tuple[str, str]]:
    """A made-up roster (username -> (team, status)): four to nine active people and one to three leavers."""
    names = rng.sample(PEOPLE, rng.randrange(5, 11))
    leavers = rng.randrange(1, min(4, len(names) - 3))
    return {name: (rng.choice(TEAMS), "left" if k < leavers else "active") for k, name in enumerate(names)}


def write_roster(path: pathlib.Path, roster: dict[str, tuple[str, str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(ROSTER_HEADER)
        for k, (name, (team, status)) in enumerate(sorted(roster.items())):
            out.writerow([name, 2001 + k, name.title(), team, "", status])


def test_saved_report() -> None:
    got = json.loads(pathlib.Path(REPORT).read_text(encoding="utf-8"))
    assert got == WANT


def test_tool_on_made_up_shadow_files(tmp_path: pathlib.Path) -> None:
    rng = random.Random(SEED)
    for k in range(6):
        roster, as_of = fresh_roster(rng), as_of_date(rng)
        text = shadow_file(rng, roster, as_of)
        shadow, people, out = tmp_path / f"shadow{k}", tmp_path / f"roster{k}.csv", tmp_path / f"out{k}" / "r.json"
        shadow.write_text(text, encoding="utf-8")
        write_roster(people, roster)
        done = run_tool(TOOL, "--out", out, "--as-of", as_of, "--roster", people, "--shadow", shadow)
        assert done.returncode == 0, (k, done.stderr[-300:])
        assert json.loads(out.read_text(encoding="utf-8")) == review(text, roster, as_of), (k, as_of)


def test_tool_refuses_what_it_cannot_read(tmp_path: pathlib.Path) -> None:
    shadow, people, out = tmp_path / "shadow", tmp_path / "roster.csv", tmp_path / "r.json"
    shadow.write_text(f"root:*:19000:0:{NEVER}:7:::\n", encoding="utf-8")
    write_roster(people, {"amoreau": ("platform", "active")})
    broken, missing = tmp_path / "broken", tmp_path / "missing"
    broken.write_text(f"root:*:19000:0:{NEVER}:7::\n", encoding="utf-8")  # eight fields
    ok = ["--shadow", shadow, "--roster", people, "--out", out]
    for args in (
        ["--shadow", shadow, "--roster", people, "--as-of", "2024-03-01"],
        ["--roster", people, "--as-of", "2024-03-01", "--out", out],
        ["--shadow", shadow, "--as-of", "2024-03-01", "--out", out],
        ok,
        [*ok, "--as-of", "2023-02-29"],
        [*ok, "--as-of", "01/03/2024"],
        [*ok, "--as-of", "20240301"],
        ["--shadow", missing, "--roster", people, "--as-of", "2024-03-01", "--out", out],
        ["--shadow", shadow, "--roster", missing, "--as-of", "2024-03-01", "--out", out],
        ["--shadow", broken, "--roster", people, "--as-of", "2024-03-01", "--out", out],
    ):
        assert_usage_error(run_tool(TOOL, *args), args)
