"""What a solution produced, by kind, with the details operators need to build on it."""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
import tempfile
import tomllib
from enum import StrEnum
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import BaseModel, Field

from rst_synth.proposers.columns import column_roles, columns_json
from rst_synth.proposers.elf import ELF_MAGIC, ar_members, elf_details, is_shared_library

SAMPLE_CHARS = 4000


class Kind(StrEnum):
    CSV = "csv"
    JSON = "json"
    TEXT = "text"
    """Logs and other line-oriented text."""
    SQLITE = "sqlite"
    GIT = "git"
    """A git repository; `path` is its work tree."""
    ARCHIVE = "archive"
    C_SOURCE = "c_source"
    PYTHON_SOURCE = "python_source"
    SHELL_SCRIPT = "shell_script"
    EXECUTABLE = "executable"
    CONFIG = "config"
    """INI, TOML, YAML, .conf."""
    BUILD = "build"
    """A Makefile, a make dependency file or a CMake list: how a program is built, read by build steps
    (never a text to count lines or words of)."""
    BINARY = "binary"
    LIBRARY = "library"
    """A static (`ar`) archive of objects or an ELF shared object; details `format` (static, shared),
    `members` or `soname`/`needed`."""


class Artifact(BaseModel):
    """One file (or repository) the parent's solution created or changed."""

    path: str
    """Absolute path inside the container."""
    kind: Kind
    size: int = 0
    new: bool = True
    """False when the file existed in the image and the solution changed its content or mode (discovery
    lists no file it left with the same bytes), or when it is an input."""
    executable: bool = False
    input: bool = False
    """One of the task's inputs: present in the image, named by the instruction, left as it was. A step may
    read it, never change it or write beside it (its tests may compare the folder)."""
    bookkeeping: bool = False
    """A checksum list, archive, listing or count of other files: later steps never build on it."""
    end_result: bool = False
    """A report of rejects or a summary a step wrote: its end result, which no later step builds on."""
    details: dict[str, Any] = Field(default_factory=dict)
    """Kind-specific facts: csv `header`/`numeric`/`categorical`/`rows`/`delimiter`/`columns` (each column's
    role, columns.py), json `type`/`keys`/`numeric_keys`/`string_keys`/`length` (records: `columns`), text
    `lines`, sqlite `tables` {name: [columns]}, `rows` and `columns` {table: {column: role}},
    archive `format`/`members`, git `commits`/`branch`, config `format`/`sections`."""
    sample: str = ""
    """The first few thousand characters of text content."""

    @property
    def state(self) -> str:
        """How the solution left it: `new`, `modified`, or `input, unchanged` (an input it only read)."""
        if self.input:
            return "input, unchanged"
        return "new" if self.new else "modified"

    @property
    def name(self) -> str:
        return PurePosixPath(self.path).name

    @property
    def stem(self) -> str:
        return PurePosixPath(self.path).stem

    @property
    def directory(self) -> str:
        return str(PurePosixPath(self.path).parent)


def csv_output(
    path: str, header: list[str], numeric: list[str], rows: int | None = None, *, end_result: bool = False
) -> Artifact:
    """A comma-separated file a step writes, described as discovery describes one, for later steps. Its
    columns' roles are left unknown until discovery reads the file (a filter or a join changes them), so
    operators that need roles wait for the next round."""
    return Artifact(
        path=path,
        kind=Kind.CSV,
        details={"header": header, "numeric": numeric, "categorical": [], "rows": rows, "delimiter": ","},
        end_result=end_result,
    )


def classify(path: str, content: bytes, executable: bool = False) -> tuple[Kind, dict[str, Any], str]:
    """Kind, details and text sample of a file from its name and bytes."""
    suffix = PurePosixPath(path).suffix.lower()
    name = PurePosixPath(path).name.lower()
    if content.startswith(b"SQLite format 3\x00"):
        return Kind.SQLITE, _sqlite_details(content), ""
    if content.startswith(ELF_MAGIC):
        elf = elf_details(content)
        if is_shared_library(elf):
            return Kind.LIBRARY, {"format": "shared", **elf}, ""
        # An object file is no program: nothing runs it or installs it.
        return (Kind.BINARY if elf.get("elf") == "relocatable" else Kind.EXECUTABLE), elf, ""
    members = ar_members(content) if suffix == ".a" else None
    if members is not None:
        return Kind.LIBRARY, {"format": "static", "members": members}, ""
    archive = _archive_format(name, content)
    if archive:
        return Kind.ARCHIVE, {"format": archive}, ""
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        return Kind.BINARY, {}, ""
    sample = text[:SAMPLE_CHARS]
    if suffix == ".c" or suffix == ".h":
        return Kind.C_SOURCE, {"lines": text.count("\n")}, sample
    if suffix == ".py":
        return Kind.PYTHON_SOURCE, {"lines": text.count("\n")}, sample
    if suffix == ".sh" or text.startswith("#!"):
        kind = Kind.SHELL_SCRIPT if suffix == ".sh" or "sh" in text.split("\n", 1)[0] else Kind.EXECUTABLE
        return kind, {"lines": text.count("\n")}, sample
    if suffix == ".json":
        details = _json_details(text)
        if details is not None:
            return Kind.JSON, details, sample
    if suffix in (".csv", ".tsv"):
        details = _csv_details(text, "\t" if suffix == ".tsv" else ",")
        if details is not None:
            return Kind.CSV, details, sample
    if _is_build_file(name, suffix, text):
        return Kind.BUILD, {"lines": text.count("\n")}, sample
    config = _config_details(suffix, text)
    if config is not None:
        return Kind.CONFIG, config, sample
    lines = {"lines": len(text.splitlines())}
    jsonl = _jsonl_details(text) if suffix in (".jsonl", ".ndjson") else None
    return Kind.TEXT, {**lines, **(jsonl or {})}, sample


_MAKE_RULE = re.compile(r"^[^\s:#=]+\.o\s*:", re.MULTILINE)


def _is_build_file(name: str, suffix: str, text: str) -> bool:
    if name in ("makefile", "gnumakefile", "cmakelists.txt") or suffix in (".mk", ".cmake"):
        return True
    return suffix == ".d" and bool(_MAKE_RULE.search(text))  # `main.o: main.c main.h` from -MMD


def _number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return value.strip() != ""


def _csv_details(text: str, delimiter: str) -> dict[str, Any] | None:
    rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    if len(rows) < 2 or len(rows[0]) < 2 or any(len(r) != len(rows[0]) for r in rows if r):
        return None
    header, body = rows[0], [r for r in rows[1:] if r]
    if any(_number(h) for h in header):
        return None  # no header row: operators need column names
    numeric = [h for i, h in enumerate(header) if all(_number(r[i]) for r in body)]
    categorical = [
        h for i, h in enumerate(header) if h not in numeric and 1 < len({r[i] for r in body}) <= max(2, len(body) // 2)
    ]
    return {
        "header": header,
        "numeric": numeric,
        "categorical": categorical,
        "rows": len(body),
        "delimiter": delimiter,
        "columns": columns_json(column_roles(header, body)),
    }


def _json_details(text: str) -> dict[str, Any] | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if isinstance(data, list):
        records = [d for d in data if isinstance(d, dict)]
        if records and len(records) == len(data):
            return {"type": "records", "length": len(data), **_records_details(records)}
        return {"type": "array", "length": len(data)}
    if isinstance(data, dict):
        return {
            "type": "object",
            "keys": sorted(data),
            "numeric_keys": sorted(k for k, v in data.items() if _is_num(v)),
            "string_keys": sorted(k for k, v in data.items() if isinstance(v, str)),
        }
    return {"type": "scalar"}


def _records_details(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The keys every record shares, which of them hold numbers or strings, and their columns' roles."""
    keys = sorted(set.intersection(*(set(d) for d in records)))
    scalar = [k for k in keys if all(isinstance(d[k], (str, int, float, bool)) for d in records)]
    cells = [[_cell(d[k]) for k in scalar] for d in records]
    return {
        "keys": keys,
        "numeric_keys": [k for k in keys if all(_is_num(d[k]) for d in records)],
        "string_keys": [k for k in keys if all(isinstance(d[k], str) for d in records)],
        "columns": columns_json(column_roles(scalar, cells)),
    }


def _jsonl_details(text: str) -> dict[str, Any] | None:
    """JSON Lines records (one object per line): a log of events is data to group, not prose."""
    records = []
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            return None
        if not isinstance(record, dict):
            return None
        records.append(record)
    return {"format": "jsonl", "records": len(records), **_records_details(records)} if records else None


def _cell(value: object) -> str:
    """A JSON scalar as the text a CSV cell would hold (booleans as 0/1: they are flags)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def _is_num(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _config_details(suffix: str, text: str) -> dict[str, Any] | None:
    if suffix == ".toml":
        try:
            return {
                "format": "toml",
                "sections": sorted(k for k, v in tomllib.loads(text).items() if isinstance(v, dict)),
            }
        except tomllib.TOMLDecodeError:
            return None
    if suffix in (".ini", ".cfg", ".conf"):
        import configparser

        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(text)
        except configparser.Error:
            return {"format": "conf", "sections": []}
        return {"format": "ini", "sections": parser.sections()}
    if suffix in (".yaml", ".yml"):
        return {"format": "yaml", "sections": []}
    return None


def _archive_format(name: str, content: bytes) -> str | None:
    if content.startswith(b"\x1f\x8b"):
        return "tar.gz" if name.endswith((".tar.gz", ".tgz")) else "gz"
    if content.startswith(b"PK\x03\x04"):
        return "zip"
    if len(content) > 262 and content[257:262] == b"ustar":
        return "tar"
    if content.startswith(b"BZh"):
        return "bz2"
    if content.startswith(b"\xfd7zXZ\x00"):
        return "xz"
    return None


def _sqlite_details(content: bytes) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "db.sqlite"
        db.write_bytes(content)
        try:
            con = sqlite3.connect(db)
            tables = [
                r[0]
                for r in con.execute(
                    "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
                )
            ]
            columns = {
                t: [(r[1], (r[2] or "").upper()) for r in con.execute(f'PRAGMA table_info("{t}")')] for t in tables
            }
            rows = {t: con.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in tables}
            roles = {t: _table_roles(con, t, [c for c, _ in columns[t]]) for t in tables}
            views = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='view' ORDER BY name")]
            con.close()
        except sqlite3.Error:
            return {"tables": {}, "rows": {}, "views": []}
    return {
        "tables": {t: [c for c, _ in cols] for t, cols in columns.items()},
        "types": {t: dict(cols) for t, cols in columns.items()},
        "rows": rows,
        "views": views,
        "columns": roles,
    }


ROLE_SAMPLE_ROWS = 2000
"""Rows of a table read to infer its columns' roles (the first ones, in rowid order)."""


def _table_roles(con: sqlite3.Connection, table: str, names: list[str]) -> dict[str, Any]:
    """The roles of a table's columns, from its first rows (NULL as an empty cell)."""
    quoted = ", ".join('"' + n.replace('"', '""') + '"' for n in names)
    try:
        body = con.execute(f'SELECT {quoted} FROM "{table}" LIMIT {ROLE_SAMPLE_ROWS}').fetchall()
    except sqlite3.Error:
        return {}
    cells = [["" if v is None else _cell(v) for v in row] for row in body]
    return columns_json(column_roles(names, cells))
