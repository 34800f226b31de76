"""A planted patch series for a git repository: a small Python module grown one function per commit, with
behaviour-preserving tidy-ups and one commit that breaks an earlier function; written as an mbox that
`git am` applies on any commit (the series only creates and edits its own files), with the check that
tells a good commit from a bad one."""

from __future__ import annotations

import difflib
import random
from dataclasses import dataclass, field

HEADER = '"""{module}: small helpers shared by the tools of this repository."""\n\nimport re\n'


@dataclass(frozen=True)
class Helper:
    name: str
    source: str
    bug: tuple[str, str]
    """(a line of the source, the line that breaks it)."""
    tidy: tuple[str, str]
    """(a line of the source, a line that does the same)."""
    checks: tuple[str, ...]
    """Python expressions over the module `m` that hold for the correct source."""


HELPERS = (
    Helper(
        "clamp",
        'def clamp(value, low, high):\n    """`value` limited to the range [low, high]."""\n'
        "    return max(low, min(value, high))\n",
        ("    return max(low, min(value, high))\n", "    return max(low, min(value, high - 1))\n"),
        ('    """`value` limited to the range [low, high]."""\n', '    """Limit `value` to [low, high]."""\n'),
        ("m.clamp(5, 0, 3) == 3", "m.clamp(-1, 0, 3) == 0", "m.clamp(2, 0, 3) == 2"),
    ),
    Helper(
        "is_leap",
        'def is_leap(year):\n    """Whether `year` is a leap year of the Gregorian calendar."""\n'
        "    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)\n",
        (
            "    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)\n",
            "    return year % 4 == 0 and year % 100 != 0\n",
        ),
        (
            "    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)\n",
            "    return (year % 4 == 0 and year % 100 != 0) or year % 400 == 0\n",
        ),
        ("m.is_leap(2000)", "not m.is_leap(1900)", "m.is_leap(2024)", "not m.is_leap(2023)"),
    ),
    Helper(
        "chunks",
        "def chunks(items, size):\n"
        '    """Consecutive slices of `items` of length `size` (the last may be shorter)."""\n'
        "    return [items[i:i + size] for i in range(0, len(items), size)]\n",
        (
            "    return [items[i:i + size] for i in range(0, len(items), size)]\n",
            "    return [items[i:i + size] for i in range(0, len(items) - size + 1, size)]\n",
        ),
        (
            "    return [items[i:i + size] for i in range(0, len(items), size)]\n",
            "    return [items[start:start + size] for start in range(0, len(items), size)]\n",
        ),
        ("m.chunks([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]", "m.chunks([], 3) == []"),
    ),
    Helper(
        "median",
        'def median(values):\n    """The median of a non-empty list of numbers."""\n    ordered = sorted(values)\n'
        "    middle = len(ordered) // 2\n    if len(ordered) % 2:\n        return ordered[middle]\n"
        "    return (ordered[middle - 1] + ordered[middle]) / 2\n",
        ("    return (ordered[middle - 1] + ordered[middle]) / 2\n", "    return ordered[middle]\n"),
        ("    if len(ordered) % 2:\n", "    if len(ordered) % 2 == 1:\n"),
        ("m.median([3, 1, 2]) == 2", "m.median([4, 1, 3, 2]) == 2.5"),
    ),
    Helper(
        "human_size",
        'def human_size(size):\n    """A byte count in binary units: 512 B, 1.5 KiB, 2.0 MiB."""\n'
        '    for unit in ("B", "KiB", "MiB", "GiB"):\n        if size < 1024 or unit == "GiB":\n'
        '            return f"{size} B" if unit == "B" else f"{size:.1f} {unit}"\n        size /= 1024\n',
        ("        size /= 1024\n", "        size /= 1000\n"),
        (
            '    """A byte count in binary units: 512 B, 1.5 KiB, 2.0 MiB."""\n',
            '    """Bytes as B, KiB, MiB or GiB."""\n',
        ),
        ('m.human_size(512) == "512 B"', 'm.human_size(1536) == "1.5 KiB"', 'm.human_size(3 * 1024 ** 2) == "3.0 MiB"'),
    ),
    Helper(
        "slug",
        'def slug(text):\n    """Lower-case words of `text` joined by single dashes."""\n'
        '    return "-".join(re.findall(r"[a-z0-9]+", text.lower()))\n',
        (
            '    return "-".join(re.findall(r"[a-z0-9]+", text.lower()))\n',
            '    return "-".join(re.findall(r"[a-z]+", text.lower()))\n',
        ),
        (
            '    return "-".join(re.findall(r"[a-z0-9]+", text.lower()))\n',
            '    return "-".join(re.findall(r"[0-9a-z]+", text.lower()))\n',
        ),
        ('m.slug("Hello, World 2!") == "hello-world-2"', 'm.slug("--") == ""'),
    ),
    Helper(
        "merge_ranges",
        'def merge_ranges(ranges):\n    """Overlapping or touching (start, end) ranges merged, sorted by start."""\n'
        "    merged = []\n    for start, end in sorted(ranges):\n        if merged and start <= merged[-1][1]:\n"
        "            merged[-1] = (merged[-1][0], max(merged[-1][1], end))\n        else:\n"
        "            merged.append((start, end))\n    return merged\n",
        ("        if merged and start <= merged[-1][1]:\n", "        if merged and start < merged[-1][1]:\n"),
        ("    merged = []\n", "    merged = list()\n"),
        ("m.merge_ranges([(5, 7), (1, 3), (3, 4)]) == [(1, 4), (5, 7)]", "m.merge_ranges([]) == []"),
    ),
    Helper(
        "luhn_ok",
        'def luhn_ok(number):\n    """Whether a string of digits passes the Luhn check."""\n    total = 0\n'
        "    for position, char in enumerate(reversed(number)):\n        digit = int(char)\n"
        "        if position % 2 == 1:\n            digit = digit * 2 - 9 if digit > 4 else digit * 2\n"
        "        total += digit\n    return total % 10 == 0\n",
        ("        if position % 2 == 1:\n", "        if position % 2 == 0:\n"),
        ("    total = 0\n", "    total = 0  # sum of the weighted digits\n"),
        ('m.luhn_ok("79927398713")', 'not m.luhn_ok("79927398710")'),
    ),
)

PEOPLE = (
    ("Ines Duarte", "ines@example.org"),
    ("Kofi Mensah", "kofi.mensah@example.com"),
    ("Mei Lin", "mei@dev.example.net"),
)


@dataclass
class Commit:
    subject: str
    author: tuple[str, str]
    epoch: int
    files: dict[str, str]
    """Every file of the series after this commit (path -> content)."""


@dataclass
class Series:
    folder: str
    module: str
    commits: list[Commit] = field(default_factory=list)
    bad: int = 0
    """Index in `commits` of the first commit the check fails on."""
    fixed: dict[str, str] = field(default_factory=dict)
    """The files of the last commit with the bad commit's change undone."""
    helpers: list[Helper] = field(default_factory=list)

    @property
    def path(self) -> str:
        return f"{self.folder}/{self.module}.py"


def _replace_once(text: str, old: str, new: str) -> str:
    """`text` with its one line equal to `old` (a whole line, newline included) replaced by `new`."""
    lines = text.splitlines(keepends=True)
    assert lines.count(old) == 1, old
    lines[lines.index(old)] = new
    return "".join(lines)


def make_series(folder: str, module: str, rng: random.Random, start_epoch: int = 1767225600) -> Series:
    """Commits that build `folder/module.py` helper by helper, two tidy-ups, a notes file, and one commit
    that breaks an earlier helper with at least two commits after it."""
    helpers = rng.sample(HELPERS, rng.randint(5, 6))
    series = Series(folder=folder, module=module, helpers=helpers)
    path, notes = series.path, f"{folder}/NOTES.md"
    # The helper the bad commit breaks is one of the first two, and another helper follows it by then: a
    # change on its last line next to lines a later commit appends would make the revert conflict.
    target = rng.randrange(0, 2)
    tidied = rng.sample([h for k, h in enumerate(helpers) if k != target], 2)
    plan: list[tuple[str, str]] = [("add", h.name) for h in helpers]
    plan.insert(rng.randint(target + 2, 3), ("bad", helpers[target].name))
    for helper in tidied:
        first = next(i for i, (kind, name) in enumerate(plan) if kind == "add" and name == helper.name)
        plan.insert(rng.randint(first + 1, len(plan)), ("tidy", helper.name))
    plan.insert(rng.randint(1, len(plan)), ("notes", ""))
    files: dict[str, str] = {}
    epoch = start_epoch
    by_name = {h.name: h for h in helpers}
    for kind, name in plan:
        epoch += rng.randint(3600, 30000)
        if kind == "add":
            body = by_name[name].source
            files[path] = (
                (files[path] + "\n\n" + body) if path in files else HEADER.format(module=module) + "\n\n" + body
            )
            subject = f"feat({module}): add {name}()"
        elif kind == "bad":
            files[path] = _replace_once(files[path], *by_name[name].bug)
            subject = f"refactor({module}): simplify {name}()"
            series.bad = len(series.commits)
        elif kind == "tidy":
            files[path] = _replace_once(files[path], *by_name[name].tidy)
            subject = f"refactor({module}): tidy {name}()"
        else:
            files[notes] = f"# {module}\n\nHelpers used by the tools; each has a check in CI.\n"
            subject = f"docs({module}): describe the helpers"
        series.commits.append(Commit(subject, rng.choice(PEOPLE), epoch, dict(files)))
    broken = helpers[target].bug
    series.fixed = dict(files)
    series.fixed[path] = _replace_once(files[path], broken[1], broken[0])
    return series


def _date(epoch: int) -> str:
    import email.utils

    return email.utils.formatdate(epoch, usegmt=False).replace("-0000", "+0000")


def mbox(series: Series) -> str:
    """The series as `git format-patch` writes it: one message per commit, a unified diff each."""
    parts: list[str] = []
    before: dict[str, str] = {}
    total = len(series.commits)
    for n, commit in enumerate(series.commits, 1):
        diffs = []
        for path in sorted(commit.files):
            old, new = before.get(path), commit.files[path]
            if old == new:
                continue
            lines = difflib.unified_diff(
                (old or "").splitlines(keepends=True),
                new.splitlines(keepends=True),
                "/dev/null" if old is None else f"a/{path}",
                f"b/{path}",
            )
            head = f"diff --git a/{path} b/{path}\n" + ("new file mode 100644\n" if old is None else "")
            diffs.append(head + "".join(lines))
        name, email = commit.author
        parts.append(
            f"From {'0' * 40} Mon Sep 17 00:00:00 2001\nFrom: {name} <{email}>\nDate: {_date(commit.epoch)}\n"
            f"Subject: [PATCH {n}/{total}] {commit.subject}\n\n---\n" + "".join(diffs) + "-- \n2.39.5\n\n"
        )
        before = commit.files
    return "".join(parts)


def check_script(series: Series) -> str:
    """`python3 CHECK DIR`: exit 0 when the module in the work tree DIR passes every check, 1 otherwise."""
    checks = [(h.name, c) for h in series.helpers for c in h.checks]
    return f'''#!/usr/bin/env python3
"""Checks the helpers of {series.path} in the work tree given as the argument (exit 0: good, 1: bad)."""
import importlib.util
import sys

sys.dont_write_bytecode = True
spec = importlib.util.spec_from_file_location("{series.module}", sys.argv[1] + "/{series.path}")
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
CHECKS = {checks!r}
failed = [check for name, check in CHECKS if hasattr(m, name) and not eval(check)]
for check in failed:
    print("FAILED: " + check)
sys.exit(1 if failed else 0)
'''
