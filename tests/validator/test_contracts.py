"""Output contracts: the other allowed ways of writing an output keep what the contract counts and change
what it leaves free."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import tomllib
from pathlib import Path

import pytest

from rst_synth.task import OutputContract
from rst_synth.validator.contracts import contract_by_type, rewritten


def contract(path: str, form: str, *fixed: str) -> OutputContract:
    return OutputContract.model_validate({"path": path, "form": form, "fixed": list(fixed)})


def test_a_contract_comes_from_the_file_type_where_none_is_declared() -> None:
    assert contract_by_type("/app/a.json", b"{}").form == "json"
    assert contract_by_type("/app/a.CSV", b"a\n").form == "csv"
    assert contract_by_type("/app/a.toml", b"").form == "toml"
    assert contract_by_type("/app/a.db", b"SQLite format 3\x00...").form == "sqlite"
    assert contract_by_type("/app/report.txt", b"total 5\n").form == "bytes"


def test_json_is_written_compact_keys_reversed_whole_floats_as_integers() -> None:
    text = json.dumps({"region": "north", "total": 5.0, "rows": [{"a": 1, "b": 2.5}]}, indent=2) + "\n"
    made = rewritten(contract("/app/t.json", "json"), text.encode())
    assert made is not None
    content, what = made
    assert json.loads(content) == json.loads(text)  # the same value: 5 == 5.0
    assert b"\n" not in content  # compact, its final newline dropped
    assert list(json.loads(content)) == ["rows", "total", "region"]
    assert b'"total": 5,' in content or b'"total": 5}' in content
    assert "keys in reverse order" in what and "whole floats as integers" in what


def test_fixed_key_order_and_numbers_stay() -> None:
    text = '{"a": 1.0, "b": 2}'
    made = rewritten(contract("/app/t.json", "json", "key_order", "numbers"), text.encode())
    assert made is not None
    assert list(json.loads(made[0])) == ["a", "b"] and b"1.0" in made[0]


def test_csv_quotes_text_fields_and_keeps_the_header_line() -> None:
    text = 'region,total,note\nnorth,12,"a, b"\nsouth,7.5,plain\n'
    made = rewritten(contract("/app/t.csv", "csv"), text.encode())
    assert made is not None
    content = made[0].decode()
    assert content.splitlines()[0] == "region,total,note"
    assert '"north",12,"a, b"' in content and '"south",7.5,"plain"' in content
    assert list(csv.reader(io.StringIO(content))) == list(csv.reader(io.StringIO(text)))
    assert content.endswith("\n")


def test_csv_with_fixed_quoting_or_a_header_alone_has_no_other_way() -> None:
    assert rewritten(contract("/app/t.csv", "csv", "quoting"), b"a,b\nx,1\n") is None
    assert rewritten(contract("/app/t.csv", "csv"), b"a,b\n") is None
    assert rewritten(contract("/app/t.csv", "csv"), b"a,b\n1,2\n") is None  # numbers only: nothing to quote


def test_semicolon_csv_keeps_its_delimiter() -> None:
    made = rewritten(contract("/app/t.csv", "csv"), b"name;n\nann;3\n")
    assert made is not None and made[0] == b'name;n\n"ann";3\n'


def test_toml_keeps_its_document() -> None:
    text = 'title = "x"\n\n[server]\nport = 80\nhost = "a"\n'
    made = rewritten(contract("/app/c.toml", "toml"), text.encode())
    assert made is not None
    assert tomllib.loads(made[0].decode()) == tomllib.loads(text)
    assert made[0].decode() != text


def test_lines_in_reverse_unless_their_order_is_fixed() -> None:
    made = rewritten(contract("/app/l.txt", "lines"), b"b\na\nc\n")
    assert made == (b"c\na\nb\n", "lines in reverse order")
    assert rewritten(contract("/app/l.txt", "lines", "line_order"), b"b\na\n") is None


def test_bytes_and_unparsable_files_have_no_other_way() -> None:
    assert rewritten(contract("/app/r.txt", "bytes"), b"total 5\n") is None
    assert rewritten(contract("/app/t.json", "json"), b"{not json") is None
    assert rewritten(contract("/app/t.json", "json"), b"") is None


@pytest.mark.parametrize("rowid", [False, True], ids=["rowid-table", "integer-key"])
def test_sqlite_is_built_again_with_the_same_rows_and_schema(tmp_path: Path, rowid: bool) -> None:
    path = tmp_path / "a.db"
    db = sqlite3.connect(path)
    key = "id INTEGER PRIMARY KEY, " if rowid else ""
    db.execute(f"CREATE TABLE t ({key}name TEXT, n INTEGER)")
    db.executemany("INSERT INTO t (name, n) VALUES (?, ?)", [("a", 1), ("b", 2), ("c", 3), ("d", 4)])
    db.execute("DELETE FROM t WHERE name = 'b'")  # a gap in the rowids, which a rebuild must keep
    db.execute("CREATE INDEX t_n ON t (n)")
    db.execute("PRAGMA user_version = 3")
    db.commit()
    db.close()
    made = rewritten(contract("/app/a.db", "sqlite"), path.read_bytes())
    assert made is not None and made[0] != path.read_bytes()
    other = tmp_path / "b.db"
    other.write_bytes(made[0])

    def rows(file: Path) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
        con = sqlite3.connect(file)
        try:
            schema = con.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall()
            version = con.execute("PRAGMA user_version").fetchall()
            return schema + version, con.execute("SELECT rowid, name, n FROM t ORDER BY rowid").fetchall()
        finally:
            con.close()

    assert rows(other) == rows(path)
