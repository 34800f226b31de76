"""The migration `sqlite-migration-tool` asks for: a text column that categorises the rows of a table moves
into a lookup table, in three versions that `PRAGMA user_version` counts. `Names` are the table, the column and
what the migration adds; the reference tool and the tests are shipped source (`sqlite/shipped/migration_tool.py`),
rendered with `Names.params()`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Names:
    """The table, its category column, and what the migration adds."""

    table: str
    column: str
    ref: str
    fk: str
    index: str
    on_insert: str
    on_update: str

    def params(self) -> dict[str, str]:
        """The shipped module's parameters: `TABLE`, `COLUMN`, `REF`, `FK`, `INDEX`, `ON_INSERT`, `ON_UPDATE`."""
        return {
            k.upper(): getattr(self, k) for k in ("table", "column", "ref", "fk", "index", "on_insert", "on_update")
        }
