"""Columns by role: which arithmetic means something for a column, decided once, from its name and values.

A step that sums a column of row numbers, averages a column whose every value is 12, or groups a
summary by its unique key computes a number that means nothing. Every operator that does arithmetic on
a table asks this module which columns fit its use (`Use`): sums take additive measures only; minimum,
maximum, mean and median take measures (additive or intensive); groups take columns that categorise
and repeat; lookups take a key that is unique. Identifiers, row numbers, codes, flags and times are never
summed or averaged.

The role comes from the column's name (its last word first: `unit_price` is a price, `order_id` an
identifier, `line_count` a count) and its values (0/1 is a flag, 1..n in order is a row number, text
that repeats is a category, text unique per row an identifier); the values decide where the name says
nothing.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Role(StrEnum):
    IDENTIFIER = "identifier"
    """Names one row or one thing: an id, a key, a name unique per row."""
    ROW_NUMBER = "row_number"
    """A position: record and line numbers, a rank, a rowid, a sequence."""
    CODE = "code"
    """A number that names a class: an HTTP status, a port, a zip code, a year, a foreign key."""
    FLAG = "flag"
    """Two values: 0/1, true/false, yes/no."""
    CATEGORY = "category"
    """Text that repeats over the rows: what to group by."""
    ADDITIVE = "additive"
    """A quantity whose sum means something: amounts, counts, bytes, durations."""
    INTENSIVE = "intensive"
    """A level whose sum means nothing: prices, rates, ratios, percents, averages, scores."""
    TIME = "time"
    """A date, a time or a timestamp."""
    TEXT = "text"
    """Free text: notes, messages, descriptions."""
    LIST = "list"
    """Several short names in one cell (`reports;vpn`): split before counting, never a group as it stands."""
    CHANGE = "change"
    """A signed change (a stock movement, a delta): its sum is the net change; its mean, extremes or rows above
    the mean mean nothing to anyone."""
    CUMULATIVE = "cumulative"
    """A running total: each value already sums the rows before it, so its sum counts them again, and its mean
    or the rows above its mean say nothing; the group's last value is the total."""


class Use(StrEnum):
    """What an operator does with a column."""

    SUM = "sum"
    """Adds the values up (totals, running totals, ledgers)."""
    STATS = "stats"
    """Minimum, maximum, mean, median, a comparison with the mean."""
    GROUP = "group"
    """Groups rows by the value."""
    KEY = "key"
    """Looks rows up by the value (a reconciliation key): unique per row."""


ROLES_FOR: dict[Use, frozenset[Role]] = {
    Use.SUM: frozenset({Role.ADDITIVE, Role.CHANGE}),
    Use.STATS: frozenset({Role.ADDITIVE, Role.INTENSIVE}),
    Use.GROUP: frozenset({Role.CATEGORY, Role.CODE, Role.FLAG}),
    Use.KEY: frozenset({Role.IDENTIFIER, Role.CATEGORY, Role.CODE}),
}
"""The roles each use takes; `Column.fits` adds the conditions on the values."""


MIN_ROWS_FOR_STATS = 6
"""A mean, an extreme or a comparison with the mean over fewer rows (three warehouse totals) says nothing."""


class Unfit(StrEnum):
    """Why a use of a column computes nothing that means something (`Column.unfit`)."""

    ROLE = "role"
    """The column's role takes no part in this arithmetic (a sum of row numbers, a mean of codes)."""
    CONSTANT = "constant"
    """One value on every row."""
    FEW_ROWS = "few_rows"
    """Statistics over fewer than MIN_ROWS_FOR_STATS rows."""
    ONE_GROUP_PER_ROW = "one_group_per_row"
    """Groups by a value that hardly repeats: a summary's key."""
    SINGLE_ROW_GROUPS = "single_row_groups"
    """Most groups are one row each (a per-name top 2 where almost every name is one row)."""
    NOT_UNIQUE = "not_unique"
    """A lookup key that is not unique per row."""


@dataclass(frozen=True)
class Column:
    """One column of a table: its role and how many distinct values it holds over how many rows."""

    name: str
    role: Role
    distinct: int
    rows: int
    single: int = 0
    """How many of its values occur on one row only."""

    @property
    def constant(self) -> bool:
        """One value on every row: no statistic of it, no group by it, carries no information."""
        return self.distinct <= 1

    def fits(self, use: Use) -> bool:
        """Whether `use` of this column computes something that means something."""
        return self.unfit(use) is None

    def unfit(self, use: Use) -> Unfit | None:
        """Why `use` of this column would compute nothing that means something, or None."""
        if self.role not in ROLES_FOR[use]:
            return Unfit.ROLE
        if self.constant:
            return Unfit.CONSTANT
        if use is Use.GROUP:  # groups that repeat, and not one group per row (a summary's key)
            if not 2 <= self.distinct <= max(2, (2 * self.rows) // 3):
                return Unfit.ONE_GROUP_PER_ROW
            if 2 * self.single > self.distinct:
                return Unfit.SINGLE_ROW_GROUPS
        if use is Use.STATS and self.rows < MIN_ROWS_FOR_STATS:
            return Unfit.FEW_ROWS
        if use is Use.KEY and self.distinct != self.rows:
            return Unfit.NOT_UNIQUE
        return None

    def to_json(self) -> dict[str, Any]:
        return {"role": self.role.value, "distinct": self.distinct, "rows": self.rows, "single": self.single}


_DECIMAL = re.compile(r"[-+]?\d+(\.\d+)?")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?|\d{1,2}:\d{2}(:\d{2})?")
_NAME = re.compile(r"[A-Za-z][\w.@+:/-]{0,31}")
_FLAG_WORDS = ({"0", "1"}, {"true", "false"}, {"yes", "no"}, {"y", "n"}, {"t", "f"})
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")

ROW_WORDS = frozenset(
    "record row line lineno linenum rownum rowid idx index seq sequence position pos rank ordinal".split()
)
NUMBERING = frozenset({"no", "num", "number", "nr"})
"""`line_no` is a row number, `invoice_no` an identifier: the word before decides."""
ID_WORDS = frozenset(
    "id ids uuid guid key sku isbn ean upc serial hash sha sha1 sha256 md5 checksum digest pid uid gid inode".split()
)
CODE_WORDS = frozenset(
    "code codes status zip zipcode postcode postal port year month day hour weekday quarter week type kind class "
    "category level tier grade version errno exit rc priority phone mode perm perms permissions".split()
)
INTENSIVE_WORDS = frozenset(
    "price prices rate rates ratio ratios pct percent percentage share fraction avg average mean median per score "
    "scores rating ratings temp temperature celsius fahrenheit latency speed velocity density probability prob factor "
    "age utilization util load efficiency margin min max minimum maximum unit level".split()
)
CUMULATIVE_WORDS = frozenset({"running", "cumulative", "cum", "cumsum", "accumulated"})
"""Anywhere in a name (`running_total`, `cum_qty`): the column sums what came before it."""
CHANGE_WORDS = frozenset("delta deltas change diff difference adjustment adj movement move moves net variance".split())
"""With values of both signs: a change, not a level or a quantity."""
TIME_WORDS = frozenset("date time timestamp ts datetime epoch created updated modified".split())
ADDITIVE_WORDS = frozenset(
    "amount amounts total totals sum n qty quantity quantities count counts units sold sales revenue cost costs spend "
    "spent paid payment payments bytes size kb mb gb duration seconds secs sec ms millis minutes hours hrs days "
    "requests hits visits errors failures views clicks downloads stock items lines words chars volume distance km "
    "miles calories points cents usd eur dollars value values balance credit debit fee fees tax income expense "
    "expenses budget profit loss salary wage wages pay tokens calls packets orders tickets commits additions "
    "deletions changes weight".split()
)


def words(name: str) -> list[str]:
    """The words of a column name, lower case: `unitPrice` and `unit_price` are ["unit", "price"]."""
    return [w.lower() for w in _WORD.findall(name)]


def _by_name(name: str) -> Role | None:
    """The role a name states, reading its last word first (the head of an English compound)."""
    parts = words(name)
    if CUMULATIVE_WORDS & set(parts):
        return Role.CUMULATIVE
    for i in range(len(parts) - 1, -1, -1):
        word = parts[i]
        if word in NUMBERING:
            return Role.ROW_NUMBER if i > 0 and parts[i - 1] in ROW_WORDS else Role.IDENTIFIER
        if word in ROW_WORDS:
            return Role.ROW_NUMBER
        if word in ID_WORDS:
            return Role.IDENTIFIER
        if word in TIME_WORDS:
            return Role.TIME
        if word in CODE_WORDS - {"level"}:
            return Role.CODE
        if word in INTENSIVE_WORDS:
            return Role.INTENSIVE
        if word in ADDITIVE_WORDS:
            # `unit_cost_cents`, `cost_per_item`: an amount per unit is a level, not a quantity
            return Role.INTENSIVE if {"unit", "per"} & set(parts) else Role.ADDITIVE
    return None


def role_of(name: str, values: Sequence[str]) -> Role:
    """The role of a column named `name` holding `values` (one string per data row)."""
    filled = [v.strip() for v in values if v.strip()]
    distinct = set(filled)
    if not filled:
        return Role.TEXT
    named = _by_name(name)
    lowered = {v.lower() for v in distinct}
    binary = len(lowered) <= 2 and any(lowered <= pair for pair in _FLAG_WORDS)
    if not all(_DECIMAL.fullmatch(v) for v in filled):
        if binary:
            return Role.FLAG
        if _listed(filled):
            return Role.LIST
        if named is Role.TIME or all(_DATE.fullmatch(v) for v in filled):
            return Role.TIME
        if len(distinct) == len(filled) and len(filled) >= 2:
            spaced = sum(" " in v for v in filled) > len(filled) // 2
            return Role.TEXT if spaced and sum(map(len, filled)) > 24 * len(filled) else Role.IDENTIFIER
        return Role.CATEGORY
    if named in (Role.ROW_NUMBER, Role.TIME):
        return named
    if named in (Role.IDENTIFIER, Role.CODE):
        unique = len(distinct) == len(filled) and len(filled) >= 2
        return Role.IDENTIFIER if unique and named is Role.IDENTIFIER else Role.CODE
    if binary:
        return Role.FLAG
    if set(words(name)) & CHANGE_WORDS and {v.startswith("-") for v in filled} == {True, False}:
        return Role.CHANGE
    if named in (Role.INTENSIVE, Role.ADDITIVE, Role.CUMULATIVE):
        return named
    if any(len(v) > 1 and v.startswith("0") and "." not in v for v in filled):
        return Role.CODE  # leading zeros: a code written as digits
    if len(filled) >= 20 and len(distinct) <= len(filled) // 10 and all(v.isdigit() for v in distinct):
        return Role.CODE  # a few whole numbers over many rows, and a name that says nothing: a status, a class
    if _in_order(filled):
        return Role.ROW_NUMBER
    return Role.ADDITIVE


def _listed(values: list[str]) -> bool:
    """Cells that list short names after `;` or `|` on two rows or more (`reports;vpn`, `a|b`)."""
    for sep in ";|":
        lists = [v.split(sep) for v in values if sep in v]
        tokens = [t.strip() for parts in lists for t in parts if t.strip()]
        if len(lists) >= 2 and tokens and all(_NAME.fullmatch(t) for t in tokens):
            return True
    return False


def _in_order(values: list[str]) -> bool:
    """1..n (or 0..n-1) in row order, on three rows or more: a row number, whatever its name."""
    if len(values) < 3 or not all(re.fullmatch(r"\d+", v) for v in values):
        return False
    numbers = [int(v) for v in values]
    return numbers[0] in (0, 1) and numbers == list(range(numbers[0], numbers[0] + len(numbers)))


def column_roles(header: Sequence[str], rows: Iterable[Sequence[str]]) -> dict[str, Column]:
    """Every column of a table, by name: its role and its distinct values over the rows given."""
    body = [list(r) for r in rows]
    columns = {}
    for i, name in enumerate(header):
        values = [r[i] if i < len(r) else "" for r in body]
        counts = Counter(v.strip() for v in values if v.strip())
        single = sum(1 for n in counts.values() if n == 1)
        role = role_of(name, values)
        columns[name] = Column(name=name, role=role, distinct=len(counts), rows=len(body), single=single)
    return columns


def columns_json(columns: Mapping[str, Column]) -> dict[str, dict[str, Any]]:
    """The form artifacts keep in `details["columns"]` (JSON, so discoveries travel between processes)."""
    return {name: column.to_json() for name, column in columns.items()}


def columns_from(data: Mapping[str, Any] | None) -> dict[str, Column]:
    """The columns an artifact's `details["columns"]` holds (empty when it holds none)."""
    out = {}
    for name, value in (data or {}).items():
        try:
            out[name] = Column(
                name=name,
                role=Role(value["role"]),
                distinct=int(value["distinct"]),
                rows=int(value["rows"]),
                single=int(value.get("single", 0)),
            )
        except (KeyError, TypeError, ValueError):
            continue
    return out


def fitting(columns: Mapping[str, Column], use: Use) -> list[str]:
    """Names of the columns that fit `use`, in table order."""
    return [name for name, column in columns.items() if column.fits(use)]


def is_summary(columns: Mapping[str, Column]) -> bool:
    """A result of grouping, not data: one row per key (no column groups) with a measure beside it. It is
    an end result: not a new batch, a feed's format or a source to group again."""
    measures = [c for c in columns.values() if c.role in (Role.ADDITIVE, Role.INTENSIVE, Role.CHANGE)]
    keyed = any(c.fits(Use.KEY) and c.role in (Role.CATEGORY, Role.IDENTIFIER, Role.CODE) for c in columns.values())
    return bool(measures) and keyed and not fitting(columns, Use.GROUP)
