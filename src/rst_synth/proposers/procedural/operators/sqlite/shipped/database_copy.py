"""A SQLite database copied page by page through the backup API, read-only on the source: shipped by the
operators that write a new copy of a database (`render(database_copy, ["copy_database"])`)."""

from __future__ import annotations

import os
import sqlite3


def copy_database(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
    source, target = sqlite3.connect(f"file:{src}?mode=ro", uri=True), sqlite3.connect(dst)
    source.backup(target)
    source.close()
    target.close()
