"""Output contracts and the other allowed ways of writing an output (the tolerance check's file edits).

A step's output has a contract (task/config.py `OutputContract`): exact bytes, or a parsed form whose
layout is free except for what the instruction fixes. Where the step's proposer declared none, the
contract comes from the file's type: JSON, CSV, TOML and SQLite files by their form with nothing fixed,
anything else by its bytes.

`rewritten` gives the same content written another way its contract allows, or None when it allows
none (exact bytes, or a file that does not parse as its form):
- JSON: compact where it was indented and indented where it was compact, keys in reverse order, a
  float that holds a whole number written as an integer, the final newline added or dropped;
- CSV: every data field that is not a number quoted, the line ending and the header line kept (the
  instruction states a header as a line);
- TOML: keys in reverse order within each table, written by `tomli_w`;
- SQLite: the same schema and rows (their rowids kept) in a new database of another page size, rows
  inserted in reverse;
- a set of lines: the lines in reverse order.
"""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
import tempfile
import tomllib
from pathlib import Path, PurePosixPath
from typing import Any

import tomli_w

from rst_synth.task import OutputContract, Task

_SQLITE_HEADER = b"SQLite format 3\x00"
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def declared_contracts(task: Task) -> dict[str, OutputContract]:
    """The contracts the task's added steps declare, by path."""
    lineage = task.config.metadata.lineage
    records = lineage.added if lineage is not None else []
    return {contract.path: contract for record in records for contract in record.outputs}


def contract_by_type(path: str, content: bytes | None, *, sqlite: bool = False) -> OutputContract:
    """The contract of a file no step declared one for: its form by its type (module docstring);
    `sqlite`: known to be a database without its content."""
    suffix = PurePosixPath(path).suffix.lower()
    if sqlite or (content is not None and content.startswith(_SQLITE_HEADER)):
        return OutputContract(path=path, form="sqlite")
    forms = {".json": "json", ".csv": "csv", ".toml": "toml"}
    form = forms.get(suffix, "bytes")
    return OutputContract.model_validate({"path": path, "form": form})


def rewritten(contract: OutputContract, content: bytes) -> tuple[bytes, str] | None:
    """`content` written another way `contract` allows, and what was changed; None where it allows none."""
    if contract.form == "bytes" or not content:
        return None
    if contract.form == "sqlite":
        return _sqlite(content)
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        return None
    fixed: set[str] = set(contract.fixed)
    try:
        made = {"json": _json, "csv": _csv, "toml": _toml, "lines": _lines}[contract.form](text, fixed)
    except (ValueError, csv.Error, tomllib.TOMLDecodeError):
        return None  # not its form: the tests' own parsing decides
    if made is None or made[0] == text:
        return None
    return made[0].encode("utf-8"), made[1]


def _json(text: str, fixed: set[str]) -> tuple[str, str] | None:
    value = json.loads(text)
    changes = []
    if "key_order" not in fixed:
        value, reordered = _reverse_keys(value)
        changes += ["keys in reverse order"] if reordered else []
    if "numbers" not in fixed:
        value, whole = _whole_floats(value)
        changes += ["whole floats as integers"] if whole else []
    if "layout" in fixed:  # the same indentation; the spacing of json.dumps
        out = json.dumps(value, indent=_indent_of(text), ensure_ascii=False)
    else:
        compact = "\n" not in text.strip()
        out = json.dumps(value, indent=None if not compact else 2, ensure_ascii=False)
        changes.append("indented" if compact else "compact")
    ends = text.endswith("\n")
    if "newline" not in fixed:
        ends = not ends
        changes.append("final newline " + ("added" if ends else "dropped"))
    return out + ("\n" if ends else ""), "JSON " + ", ".join(changes)


def _indent_of(text: str) -> int | None:
    found = re.search(r"\n( +)\S", text)
    return len(found[1]) if found else None


def _reverse_keys(value: Any) -> tuple[Any, bool]:
    if isinstance(value, dict):
        items = [(k, _reverse_keys(v)) for k, v in reversed(list(value.items()))]
        changed = len(value) > 1 or any(c for _, (_, c) in items)
        return {k: v for k, (v, _) in items}, changed
    if isinstance(value, list):
        parts = [_reverse_keys(v) for v in value]
        return [v for v, _ in parts], any(c for _, c in parts)
    return value, False


def _whole_floats(value: Any) -> tuple[Any, bool]:
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value), True
    if isinstance(value, dict):
        parts = {k: _whole_floats(v) for k, v in value.items()}
        return {k: v for k, (v, _) in parts.items()}, any(c for _, c in parts.values())
    if isinstance(value, list):
        items = [_whole_floats(v) for v in value]
        return [v for v, _ in items], any(c for _, c in items)
    return value, False


def _csv(text: str, fixed: set[str]) -> tuple[str, str] | None:
    if "quoting" in fixed or "\n" not in text.strip("\n"):
        return None
    first, _, rest = text.partition("\n")
    newline = "\r\n" if first.endswith("\r") else "\n"
    delimiter = max(",;\t|", key=first.count)
    rows = list(csv.reader(io.StringIO(rest, newline=""), delimiter=delimiter, strict=True))
    if not rows or any(len(row) == 0 for row in rows[:-1]):
        return None
    body, quoted = "", 0
    for row in rows:
        line = []
        for field in row:
            if field and not _NUMBER.fullmatch(field) and '"' not in field:
                line.append(f'"{field}"')
                quoted += 1
            else:
                line.append(_minimal(field, delimiter))
        body += delimiter.join(line) + newline
    if not text.endswith("\n"):
        body = body[: -len(newline)]
    return (first + "\n" + body, f"CSV with {quoted} text field(s) quoted") if quoted else None


def _minimal(field: str, delimiter: str) -> str:
    if any(c in field for c in (delimiter, '"', "\n", "\r")):
        return '"' + field.replace('"', '""') + '"'
    return field


def _toml(text: str, fixed: set[str]) -> tuple[str, str] | None:
    value = tomllib.loads(text)
    if "key_order" not in fixed:
        value, _ = _reverse_keys(value)
    return tomli_w.dumps(value), "TOML written again" + ("" if "key_order" in fixed else ", keys in reverse order")


def _lines(text: str, fixed: set[str]) -> tuple[str, str] | None:
    if "line_order" in fixed:
        return None
    lines = text.splitlines()
    ends = text.endswith("\n")
    return "\n".join(reversed(lines)) + ("\n" if ends else ""), "lines in reverse order"


def _sqlite(content: bytes) -> tuple[bytes, str] | None:
    with tempfile.TemporaryDirectory() as folder:
        source, target = Path(folder, "a.db"), Path(folder, "b.db")
        source.write_bytes(content)
        db = sqlite3.connect(target, isolation_level=None)
        try:
            db.execute("ATTACH DATABASE ? AS old", (str(source),))
            size = db.execute("PRAGMA old.page_size").fetchone()[0]
            db.execute(f"PRAGMA main.page_size = {8192 if size != 8192 else 4096}")
            _copy(db)
        except sqlite3.Error:
            return None
        finally:
            db.close()
        return target.read_bytes(), "SQLite database built again (another page size, rows inserted in reverse)"


def _copy(db: sqlite3.Connection) -> None:
    """The attached `old` database's schema and rows into `main`: each rowid kept (a rowid table's rows
    are inserted last first, so their order on disk differs), then its indexes, triggers and views."""
    entries = db.execute(
        "SELECT type, name, sql FROM old.sqlite_master WHERE sql IS NOT NULL ORDER BY rowid"
    ).fetchall()
    tables = [(name, sql) for kind, name, sql in entries if kind == "table" and not name.startswith("sqlite_")]
    db.execute("BEGIN")
    for name, sql in tables:
        db.execute(sql)
        quoted = '"' + name.replace('"', '""') + '"'
        columns = [row[1] for row in db.execute(f"PRAGMA old.table_info({quoted})")]
        listed = ", ".join('"' + c.replace('"', '""') + '"' for c in columns)
        rowid = "WITHOUT ROWID" not in sql.upper()
        keys = f"rowid, {listed}" if rowid else listed
        order = " ORDER BY rowid DESC" if rowid else ""
        db.execute(f"INSERT INTO main.{quoted} ({keys}) SELECT {keys} FROM old.{quoted}{order}")
    if db.execute("SELECT 1 FROM old.sqlite_master WHERE name = 'sqlite_sequence'").fetchone():
        db.execute("DELETE FROM main.sqlite_sequence")
        db.execute("INSERT INTO main.sqlite_sequence SELECT * FROM old.sqlite_sequence")
    for kind, _, sql in entries:
        if kind in ("index", "trigger", "view"):
            db.execute(sql)
    db.execute("COMMIT")
    for pragma in ("user_version", "application_id"):  # the header's numbers are content too (a schema version)
        db.execute(f"PRAGMA main.{pragma} = {int(db.execute(f'PRAGMA old.{pragma}').fetchone()[0])}")
