"""The degenerate check: every new output of a child carries information.

A step that filters a table to a header and no rows, writes `[]`, sums a column that is 1 on every
row or takes statistics of a constant column (min = max = mean = median) makes a task longer, not
harder, and its tests check a number that means nothing. This check reads the new outputs
(validator/quality.py `new_outputs`) in the oracle's container and rejects a child when one of them,
as a whole, carries no information: a table with a header and no rows; `[]`, `{}` or JSON of nothing
but empty values; an SQLite database whose tables hold no rows; two or more rows whose every numeric
column holds one value; one row (or JSON object) of two or more numbers all one value. A document of
several parts (a JSON object holding arrays, a database of several tables) is degenerate only when
no part carries information (docs/validation.md, "The acceptance contract", lists what is read as
a table or JSON).

Not judged: empty files and whitespace (marker files are legitimate outputs), other text (logs, code,
prose), binaries other than SQLite, files over MAX_JUDGED_BYTES, and a database whose `-wal` file
holds pending writes: what cannot be read as a whole cannot be called empty.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import sqlite3
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath

from rst_synth.sandbox import Container, FileDigest, FileState
from rst_synth.validator.models import Check, CheckResult, Reason, Verdict
from rst_synth.validator.quality import listed

MAX_JUDGED_BYTES = 1024 * 1024
"""Larger outputs are not read."""
MAX_JUDGED_OUTPUTS = 32
"""Outputs read at most (the first by path)."""
MAX_TABLE_ROWS = 10_000
"""Rows read of an SQLite table."""
HEAD_LINES = 5
"""Lines of a degenerate text output quoted in the check's output tail."""
TABLE_SUFFIXES = {".csv": ",", ".tsv": "\t", ".tab": "\t"}
JSON_SUFFIXES = frozenset({".json"})
JSON_LINES_SUFFIXES = frozenset({".jsonl", ".ndjson"})
SNIFFED_SUFFIXES = frozenset({"", ".txt", ".dat", ".out"})
"""Where a table or a JSON document is recognised by its content."""
_SNIFFED_DELIMITERS = ("\t", ",", "|", ";")
_SQLITE_HEADER = b"SQLite format 3\x00"
_NUMBER = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$")
_NAME = re.compile(r"^[A-Za-z_][\w .%()/#-]*$")
NO_ROWS = "no rows"
_NO_WAL = FileDigest(0, "")

Row = dict[str, object]


@dataclass(frozen=True)
class Judged:
    """An output the check could read as a table, a JSON document or an SQLite database."""

    kind: str
    """"table", "json" or "sqlite"."""
    problem: str | None
    """Why it carries no information; None when it does."""


def judge(path: str, content: bytes) -> Judged | None:
    """Judge one output by its path and bytes; None when it is not a table, a JSON document or an
    SQLite database (module docstring: such files are not judged)."""
    if content.startswith(_SQLITE_HEADER):
        return _sqlite_judged(content)
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    if not text.strip() or "\0" in text:
        return None
    suffix = PurePosixPath(path).suffix.lower()
    if suffix in JSON_LINES_SUFFIXES:
        records = _json_lines(text)
        return None if records is None else Judged("json", _json_problem(records))
    if suffix in JSON_SUFFIXES or (suffix in SNIFFED_SUFFIXES and text.lstrip()[:1] in ("{", "[")):
        try:
            document = json.loads(text)
        except ValueError:
            document = None
        if isinstance(document, dict | list):
            return Judged("json", _json_problem(document))
    if suffix in TABLE_SUFFIXES:
        rows = _delimited(text, TABLE_SUFFIXES[suffix])
        return None if rows is None else Judged("table", _csv_problem(rows))
    if suffix in SNIFFED_SUFFIXES:
        rows = _sniffed(text)
        return None if rows is None else Judged("table", _csv_problem(rows))
    return None


def degenerate_reason(path: str, content: bytes) -> str | None:
    """Why the output at `path` carries no information; None when it does or is not judged."""
    found = judge(path, content)
    return found.problem if found is not None else None


# -- what a row, a table and a document carry ------------------------------------------------------


def _number(cell: object) -> float | None:
    """The cell's value when it is a finite number, or text that reads as one; else None."""
    if isinstance(cell, bool) or not isinstance(cell, int | float | str):
        return None
    if isinstance(cell, str):
        if not _NUMBER.match(cell.strip()):
            return None
        cell = float(cell)
    value = float(cell)
    return value if math.isfinite(value) else None


def _blank(value: object) -> bool:
    """None, whitespace, an empty string/bytes, or arrays and objects of nothing but such values."""
    if value is None:
        return True
    if isinstance(value, str | bytes):
        return not value.strip()
    if isinstance(value, dict):
        return all(_blank(v) for v in value.values())
    if isinstance(value, list):
        return all(_blank(v) for v in value)
    return False


def _shown(value: float) -> str:
    return str(int(value)) if value.is_integer() else f"{value:g}"


def _row_problem(row: Row, what: str = "one row") -> str | None:
    """One row: empty, or two or more numbers that are all one value; None when it carries information."""
    numbers = {name: n for name, cell in row.items() if (n := _number(cell)) is not None}
    if len(numbers) >= 2 and len(set(numbers.values())) == 1:
        value = _shown(next(iter(numbers.values())))
        return f"{what} whose {len(numbers)} numbers are all {value} ({', '.join(numbers)})"
    return NO_ROWS if all(_blank(cell) for cell in row.values()) else None


def _table_problem(rows: list[Row], no_rows: str = NO_ROWS) -> str | None:
    """A table: no rows (blank rows ignored), one row (`_row_problem`), or rows whose every numeric
    column holds one value; None when it carries information."""
    rows = [row for row in rows if not _blank(list(row.values()))]
    if not rows:
        return no_rows
    if len(rows) == 1:
        return _row_problem(rows[0])
    names = list(dict.fromkeys(name for row in rows for name in row))
    numeric: dict[str, set[float]] = {}
    for name in names:
        filled = [row[name] for row in rows if not _blank(row.get(name))]
        values = [_number(cell) for cell in filled]
        if filled and all(v is not None for v in values):
            numeric[name] = {v for v in values if v is not None}
    if not numeric or any(len(values) > 1 for values in numeric.values()):
        return None
    held = ", ".join(f"{name} = {_shown(next(iter(values)))}" for name, values in numeric.items())
    return f"{len(rows)} rows whose every numeric column holds one value ({held})"


# -- delimited text --------------------------------------------------------------------------------


def _delimited(text: str, delimiter: str) -> list[list[str]] | None:
    """The non-blank rows of delimited text; None when it does not parse."""
    try:
        rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    except csv.Error:
        return None
    return [row for row in rows if any(cell.strip() for cell in row)]


def _is_header(row: list[str]) -> bool:
    return all(_number(cell) is None for cell in row)


def _sniffed(text: str) -> list[list[str]] | None:
    """Rows of text that is a table by its content: two or more lines that split into the same two or
    more fields, the first of them names (a header)."""
    for delimiter in _SNIFFED_DELIMITERS:
        rows = _delimited(text, delimiter)
        if not rows or len(rows) < 2 or len({len(row) for row in rows}) != 1 or len(rows[0]) < 2:
            continue
        if all(_NAME.match(cell.strip()) for cell in rows[0]):
            return rows
    return None


def _csv_problem(rows: list[list[str]]) -> str | None:
    """A delimited table: its first row is a header unless one of its cells is a number."""
    if not rows:
        return None
    width = max(len(row) for row in rows)
    if _is_header(rows[0]):
        header, body, no_rows = rows[0], rows[1:], "a header and no rows"
    else:
        header, body, no_rows = [], rows, NO_ROWS
    names = _column_names(header, width)
    return _table_problem([dict(zip(names, row, strict=False)) for row in body], no_rows)


def _column_names(header: list[str], width: int) -> list[str]:
    """Display names, unique: the header's (repeats numbered), then `column N`."""
    names: list[str] = []
    for i in range(width):
        name = header[i].strip() if i < len(header) and header[i].strip() else f"column {i + 1}"
        names.append(name if name not in names else f"{name} ({i + 1})")
    return names


# -- JSON ------------------------------------------------------------------------------------------


def _json_lines(text: str) -> list[object] | None:
    try:
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    except ValueError:
        return None


def _json_problem(document: dict[str, object] | list[object]) -> str | None:
    """A JSON document: empty, or no part of it carries information (module docstring)."""
    kind = "array" if isinstance(document, list) else "object"
    if not document:
        return f"an empty JSON {kind}"
    if _blank(document):
        return f"a JSON {kind} whose values are all empty"
    problems: list[str] = []
    for where, problem in _json_parts(document, ""):
        if problem is None:
            return None
        if problem != NO_ROWS:
            problems.append(f"{where}: {problem}" if where else problem)
    return problems[0] if problems else f"a JSON {kind} whose values are all empty"


def _json_parts(value: object, where: str) -> Iterator[tuple[str, str | None]]:
    """(location, problem) of each part: an object's scalars, flattened through nested objects, form
    one row; each array an object holds is a table of its own (an array inside a row of a table is a
    cell of that row)."""
    if isinstance(value, list):
        yield where, _array_problem(value)
        return
    if isinstance(value, dict):
        row = {key: cell for key, cell in _flatten(value, "").items() if not isinstance(cell, list)}
        if row:
            yield where, _row_problem(row, "an object")
        for key, cell in _flatten(value, "").items():
            if isinstance(cell, list):
                yield from _json_parts(cell, _joined(where, key))


def _joined(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _flatten(record: dict[str, object], prefix: str) -> dict[str, object]:
    """The record's values by dotted key, nested objects opened (an empty one kept as a value)."""
    flat: dict[str, object] = {}
    for key, value in record.items():
        name = _joined(prefix, str(key))
        if isinstance(value, dict) and value:
            flat.update(_flatten(value, name))
        else:
            flat[name] = value
    return flat


def _array_problem(items: list[object]) -> str | None:
    """An array as a table: objects are rows by key, arrays rows by position, scalars one column."""
    if all(isinstance(item, dict) for item in items):
        return _table_problem([_flatten(item, "") for item in items if isinstance(item, dict)])
    if all(isinstance(item, list) for item in items):
        rows = [item for item in items if isinstance(item, list)]
        width = max((len(row) for row in rows), default=0)
        names = _column_names([], width)
        return _table_problem([dict(zip(names, row, strict=False)) for row in rows])
    if not any(isinstance(item, dict | list) for item in items):
        return _table_problem([{"value": item} for item in items])
    return NO_ROWS if _blank(items) else None


# -- SQLite ----------------------------------------------------------------------------------------


def _sqlite_judged(content: bytes) -> Judged | None:
    """A database whose tables hold no rows, or none of whose tables carries information; None when no
    table could be read."""
    with tempfile.TemporaryDirectory() as folder:
        path = PurePosixPath(folder) / "db"
        with open(path, "wb") as file:
            file.write(content)
        try:
            db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
        except sqlite3.Error:
            return None
        try:
            return _tables_judged(db)
        except sqlite3.Error:  # not a database after all (a damaged or partial file)
            return None
        finally:
            db.close()


def _tables_judged(db: sqlite3.Connection) -> Judged | None:
    names = [
        row[0]
        for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        if not row[0].startswith("sqlite_")
    ]
    if not names:
        return Judged("sqlite", "an SQLite database with no table")
    problems: dict[str, str] = {}
    for table in names:
        quoted = '"' + table.replace('"', '""') + '"'
        try:
            cursor = db.execute(f"SELECT * FROM {quoted} LIMIT {MAX_TABLE_ROWS}")
            columns = [d[0] for d in cursor.description]
            rows = [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]
        except sqlite3.Error:  # a virtual table whose module this Python lacks
            continue
        problem = _table_problem(rows)
        if problem is None:
            return Judged("sqlite", None)
        problems[table] = problem
    if not problems:
        return None
    if all(problem == NO_ROWS for problem in problems.values()):
        return Judged("sqlite", f"an SQLite database whose {len(problems)} table(s) hold no rows")
    shown = ", ".join(f"table {table}: {problem}" for table, problem in problems.items() if problem != NO_ROWS)
    return Judged("sqlite", shown)


# -- the check -------------------------------------------------------------------------------------


def judged_paths(outputs: FileState) -> list[str]:
    """The outputs the check may read, by path: not empty, at most MAX_JUDGED_BYTES, not a database
    with pending writes in its `-wal` file."""
    return [
        path
        for path in sorted(outputs)
        if 0 < outputs[path].size <= MAX_JUDGED_BYTES and outputs.get(path + "-wal", _NO_WAL).size == 0
    ]


def _head(path: str, content: bytes) -> str:
    if content.startswith(_SQLITE_HEADER):
        return f"{path}: (SQLite database)"
    lines = [line[:160] for line in content.decode("utf-8", errors="replace").splitlines() if line.strip()]
    more = [f"[... {len(lines) - HEAD_LINES} more lines]"] if len(lines) > HEAD_LINES else []
    return "\n".join([f"{path}:", *lines[:HEAD_LINES], *more])


async def degenerate_outputs(box: Container, outputs: FileState) -> CheckResult:
    """The check, reading the new outputs in `box`, the oracle's container, after its solution (the
    engine's archive reader: the outputs are the regular files the image's user could list and
    hash). The detail names each degenerate output and why; the output tail quotes their first lines."""
    problems: list[str] = []
    heads: list[str] = []
    judged = 0
    readable = judged_paths(outputs)
    for path in readable[:MAX_JUDGED_OUTPUTS]:
        content = await box.read_file(PurePosixPath(path))
        found = judge(path, content) if content else None
        if found is None:
            continue
        judged += 1
        if found.problem is not None:
            problems.append(f"{path}: {found.problem}")
            heads.append(_head(path, content or b""))
    if problems:
        tail = "\n\n".join(heads) + "\n"
        reason = Reason.DEGENERATE_OUTPUT
        return CheckResult(
            check=Check.DEGENERATE, verdict=Verdict.FAIL, reason=reason, detail=listed(problems), output_tail=tail
        )
    capped = f", the first {MAX_JUDGED_OUTPUTS} by path read" if len(readable) > MAX_JUDGED_OUTPUTS else ""
    ok = f"{judged} of {len(outputs)} new output(s) judged (tables, JSON, SQLite){capped}: none empty of information"
    return CheckResult(check=Check.DEGENERATE, verdict=Verdict.PASS, reason=Reason.OK, detail=ok)


__all__ = [
    "MAX_JUDGED_BYTES",
    "MAX_JUDGED_OUTPUTS",
    "Judged",
    "degenerate_outputs",
    "degenerate_reason",
    "judge",
    "judged_paths",
]
