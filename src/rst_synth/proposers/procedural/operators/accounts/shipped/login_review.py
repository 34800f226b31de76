"""What `accounts-login-review` ships: the tool (`main`: an old host's sshd log reviewed against the roster, logins
and failures per user, leavers' and strangers' logins flagged, brute-force sources found by a sliding window), the
reference review it runs (`review`), the auth logs the step plants and the tests make up (`auth_log`, `fresh_roster`),
and the tests that compare the saved report and the tool's reports on made-up logs with the reference. The constants
are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import pathlib
import random
import re
import sys
from typing import Any

from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, run_tool

TOOL = "/app/bin/login-review"
LOG = "/app/incoming/s1/oldhost-auth.log"
ROSTER = "/app/onboarding/roster.csv"
REPORT = "/app/audit/login_review.json"
YEAR = 2024
THRESHOLD = 5
WINDOW = 10
"""Minutes: THRESHOLD failures of one source within WINDOW minutes (both ends included) are a brute force."""
SEED = 1234
WANT: dict[str, Any] = {"users": {}, "brute_force": []}
"""The review of the planted log, worked out when the step was built."""

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
LINE = re.compile(r"([A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d) \S+ sshd\[\d+\]: (.*)")
ACCEPTED = re.compile(r"Accepted \S+ for (\S+) from (\S+) port \d+")
FAILED = re.compile(r"Failed \S+ for (?:invalid user )?(\S+) from (\S+) port \d+")
ROSTER_HEADER = ("username", "uid", "full_name", "team", "extra_groups", "status")
PEOPLE = ("amoreau", "bkeller", "cnguyen", "dsilva", "eokafor", "fhansen", "gbrown", "hlee", "iward", "jtanaka")
OUTSIDERS = ("deploy", "backup", "root", "ansible")
"""Accounts of the old host that no roster names: one of them logging in is a finding."""
GUESSES = ("admin", "test", "oracle", "ubuntu", "guest", "pi")
"""Names a scanner tries: no account has them, so sshd logs `Invalid user` before each failure."""


def moment(stamp: str, year: int) -> datetime.datetime:
    """A syslog time (`Feb 29 23:58:10`, no year) in `year`: no strptime, whose default year has no Feb 29."""
    month, day, clock = stamp.split()
    hour, minute, second = (int(part) for part in clock.split(":"))
    return datetime.datetime(year, MONTHS.index(month) + 1, int(day), hour, minute, second)


def review(lines: list[str], roster: dict[str, str], year: int, threshold: int, window: int) -> dict[str, Any]:
    """The report of an auth log's lines against a roster (username -> status), by the instruction's rules."""
    users: dict[str, dict[str, Any]] = {}
    failures: dict[str, list[datetime.datetime]] = {}
    for line in lines:
        head = LINE.fullmatch(line)
        if head is None:
            continue  # another program's line, or no syslog line at all
        for kind, pattern in (("accepted", ACCEPTED), ("failed", FAILED)):
            hit = pattern.match(head[2])
            if hit is None:
                continue
            when = moment(head[1], year)
            entry = users.setdefault(hit[1], {"accepted": 0, "failed": 0, "last_accepted": None, "flag": None})
            entry[kind] += 1
            if kind == "accepted":
                entry["last_accepted"] = max(entry["last_accepted"] or "", when.isoformat())
            else:
                failures.setdefault(hit[2], []).append(when)
    shown = {}
    for name, entry in users.items():
        status = roster.get(name)
        if status is None and not entry["accepted"]:
            continue  # a scanner's guess that never got in: the brute-force list covers it
        if entry["accepted"] and status == "left":
            entry["flag"] = "left"
        elif status is None:
            entry["flag"] = "not_in_roster"
        shown[name] = entry
    span = datetime.timedelta(minutes=window)
    found = []
    for source, times in failures.items():
        times.sort()
        if any(times[k + threshold - 1] - times[k] <= span for k in range(len(times) - threshold + 1)):
            found.append({"source": source, "first_failure": times[0].isoformat(), "failures": len(times)})
    found.sort(key=lambda f: (f["first_failure"], f["source"]))
    return {"users": shown, "brute_force": found}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="login-review", description="Review an sshd auth log against a roster.")
    parser.add_argument("--log", required=True)
    parser.add_argument("--roster", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv[1:])  # a missing option: usage on stderr, exit 2
    try:
        lines = pathlib.Path(args.log).read_text(encoding="utf-8", errors="replace").splitlines()
        with open(args.roster, newline="", encoding="utf-8") as f:
            roster = {row["username"]: row["status"] for row in csv.DictReader(f)}
    except (OSError, UnicodeDecodeError, KeyError) as error:
        print(f"login-review: {error}", file=sys.stderr)
        return 2
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    report = review(lines, roster, YEAR, THRESHOLD, WINDOW)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


def auth_log(rng: random.Random, roster: dict[str, str], threshold: int, window: int, year: int) -> str:
    """An old host's auth log from 21:00 to 03:00 (a day boundary, in a leap year Feb 28 to 29 half the time):
    the roster's users logging in, a typo, a leaver's login and a leaver's failed tries, an outsider's login, a
    scanner over the window's edge, one just past it, one with a failure fewer than the threshold (an `Invalid
    user` line before each), and cron, sudo, systemd and other sshd lines to ignore."""
    day = datetime.datetime(year, 2, 28) if rng.random() < 0.5 else datetime.datetime(year, rng.randrange(1, 13), 10)
    start = day + datetime.timedelta(hours=21)
    names = sorted(roster)
    active = [n for n in names if roster[n] == "active"]
    left = [n for n in names if roster[n] == "left"]
    outsider = rng.choice([n for n in OUTSIDERS if n not in roster])
    guesses = [n for n in GUESSES if n not in roster]
    events: list[tuple[datetime.datetime, str, str]] = []

    def at(seconds: int) -> datetime.datetime:
        return start + datetime.timedelta(seconds=seconds)

    uids = {name: 2001 + k for k, name in enumerate(sorted({*roster, outsider}))}

    def sshd(when: datetime.datetime, message: str, pid: int) -> None:
        events.append((when, f"sshd[{pid}]", message))

    def login(user: str, when: datetime.datetime, source: str, method: str = "publickey") -> None:
        port, pid = rng.randrange(32768, 61000), rng.randrange(1000, 60000)  # one connection, one sshd process
        key = " ssh2: ED25519 SHA256:" + rng.randbytes(12).hex() if method == "publickey" else " ssh2"
        sshd(when, f"Accepted {method} for {user} from {source} port {port}{key}", pid)
        sshd(when, f"pam_unix(sshd:session): session opened for user {user}(uid={uids[user]}) by (uid=0)", pid)
        later = when + datetime.timedelta(seconds=rng.randrange(60, 3600))
        sshd(later, f"Disconnected from user {user} {source} port {port}", pid)

    def fail(user: str, when: datetime.datetime, source: str, invalid: bool) -> None:
        port, pid = rng.randrange(32768, 61000), rng.randrange(1000, 60000)
        if invalid:  # as sshd logs a name without an account: announced, failed, closed
            sshd(when, f"Invalid user {user} from {source} port {port}", pid)
            sshd(when, f"Failed password for invalid user {user} from {source} port {port} ssh2", pid)
            sshd(when, f"Connection closed by invalid user {user} {source} port {port} [preauth]", pid)
        else:
            method = rng.choice(["password", "password", "keyboard-interactive/pam"])
            sshd(when, f"Failed {method} for {user} from {source} port {port} ssh2", pid)

    def inside() -> str:
        return f"10.0.{rng.randrange(1, 9)}.{rng.randrange(2, 250)}"

    for user in rng.sample(active, min(len(active), 4)):
        for _ in range(rng.randrange(1, 4)):
            login(user, at(rng.randrange(0, 6 * 3600)), inside())
    typist = rng.choice(active)
    source, when = inside(), at(rng.randrange(0, 5 * 3600))
    for k in range(rng.randrange(1, 3)):
        fail(typist, when + datetime.timedelta(seconds=4 * k), source, False)
    login(typist, when + datetime.timedelta(seconds=12), source, "password")
    if left:
        login(left[0], at(rng.randrange(0, 6 * 3600)), inside())  # the leaver's key still works on the old host
    for name in left[1:2]:
        fail(name, at(rng.randrange(0, 6 * 3600)), inside(), False)
    login(outsider, at(rng.randrange(0, 6 * 3600)), inside())
    # Three scanners about midnight: all `threshold` failures within exactly `window` minutes; the same spread
    # one second wider; and one failure fewer than the threshold, each failure after an `Invalid user` line.
    spreads = [(window * 60, threshold), (window * 60 + 1, threshold), (rng.randrange(30, window * 60), threshold - 1)]
    for k, (spread, count) in enumerate(spreads):
        first = 3 * 3600 - rng.randrange(0, spread + 1)
        offsets = sorted([0, spread, *(rng.randrange(0, spread + 1) for _ in range(count - 2))])[:count]
        source = f"{rng.choice(['203.0.113', '198.51.100', '192.0.2'])}.{10 * k + rng.randrange(1, 10)}"
        target = rng.choice(active) if k == 0 and rng.random() < 0.5 else None
        for offset in offsets:
            name = target or rng.choice(guesses)
            fail(name, at(first + offset), source, invalid=target is None)
    for hour in range(6):
        when = at(hour * 3600 + 17 * 60 + 1)
        events.append(
            (
                when,
                f"CRON[{rng.randrange(1000, 60000)}]",
                "pam_unix(cron:session): session opened for user root(uid=0) by (uid=0)",
            )
        )
        events.append(
            (
                when,
                "CRON[812]",
                '(root) CMD (grep -c "Accepted publickey for root from 10.9.8.7 port 22" /var/log/auth.log)',
            )
        )
    admin = rng.choice(active)
    events.append(
        (
            at(rng.randrange(0, 6 * 3600)),
            "sudo",
            f" {admin} : TTY=pts/0 ; PWD=/home/{admin} ; USER=root ; COMMAND=/usr/bin/systemctl restart ssh",
        )
    )
    events.append((at(rng.randrange(0, 6 * 3600)), "systemd[1]", "Started ssh.service - OpenBSD Secure Shell server."))
    sshd(
        at(rng.randrange(0, 6 * 3600)), f"Received disconnect from {inside()} port 52114:11: disconnected by user", 977
    )
    events.sort(key=lambda e: e[0])  # stable: an `Invalid user` line stays before its failure
    return "".join(f"{MONTHS[w.month - 1]} {w.day:>2} {w:%H:%M:%S} oldhost {p}: {m}\n" for w, p, m in events)


def fresh_roster(rng: random.Random) -> dict[str, str]:
    """A made-up roster (username -> status): three to seven active people and one or two leavers."""
    names = rng.sample(PEOPLE, rng.randrange(5, 9))
    leavers = rng.randrange(1, 3)
    return {name: "left" if k < leavers else "active" for k, name in enumerate(names)}


def write_roster(path: pathlib.Path, roster: dict[str, str]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(ROSTER_HEADER)
        for k, (name, status) in enumerate(sorted(roster.items())):
            out.writerow([name, 2001 + k, name.title(), "platform", "", status])


def test_saved_report() -> None:
    got = json.loads(pathlib.Path(REPORT).read_text(encoding="utf-8"))
    assert got == WANT


def test_tool_on_made_up_logs(tmp_path: pathlib.Path) -> None:
    rng = random.Random(SEED)
    for k in range(6):
        roster = fresh_roster(rng)
        text = auth_log(rng, roster, THRESHOLD, WINDOW, YEAR)
        log, people, out = tmp_path / f"auth{k}.log", tmp_path / f"roster{k}.csv", tmp_path / f"out{k}" / "r.json"
        log.write_text(text, encoding="utf-8")
        write_roster(people, roster)
        done = run_tool(TOOL, "--log", log, "--roster", people, "--out", out)
        assert done.returncode == 0, (k, done.stderr[-300:])
        assert json.loads(out.read_text(encoding="utf-8")) == review(
            text.splitlines(), roster, YEAR, THRESHOLD, WINDOW
        ), k


def test_tool_refuses_what_it_cannot_read(tmp_path: pathlib.Path) -> None:
    log, people, out = tmp_path / "auth.log", tmp_path / "roster.csv", tmp_path / "r.json"
    log.write_text("", encoding="utf-8")
    write_roster(people, {"amoreau": "active"})
    missing = tmp_path / "missing"
    for args in (
        ["--log", log, "--roster", people],
        ["--roster", people, "--out", out],
        ["--log", missing, "--roster", people, "--out", out],
        ["--log", log, "--roster", missing, "--out", out],
    ):
        assert_usage_error(run_tool(TOOL, *args), args)
