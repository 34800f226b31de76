"""The delta feed `sqlite-delta-merge` plants next to a database, and the rules that merge it.

A feed is JSON Lines: one change event per line, `{"seq", "ts", "op", "id", "data"}`. The events
arrive out of order, with timestamps written in several UTC offsets, some older than the snapshot the
database already holds, some for rows deleted in the meantime: merging them needs the rules, not one
UPDATE per line. `shipped/delta_merge.py` holds the rules (`merged_rows`): the reference the solution runs
and the tests recompute with.
"""

from __future__ import annotations

import datetime
import json
import random
from dataclasses import dataclass

from rst_synth.proposers.procedural.operators.kit.roles import affinity

OFFSETS = ((0, "Z"), (120, "+02:00"), (-300, "-05:00"), (330, "+05:30"), (-60, "-01:00"))


@dataclass(frozen=True)
class FeedTable:
    """The table a feed changes: its name, its columns in order with their declared types, and its rows."""

    name: str
    columns: list[str]
    types: dict[str, str]
    rows: int
    flags: frozenset[str] = frozenset()
    """Columns whose role is a flag (columns.py): an event sets them to 0 or 1."""

    @property
    def others(self) -> list[str]:
        """The columns an event may set: every column but the key."""
        return [c for c in self.columns if c.lower() != "id"]

    @property
    def key(self) -> str:
        return next(c for c in self.columns if c.lower() == "id")


def _stamp(moment: datetime.datetime, offset: tuple[int, str]) -> str:
    minutes, suffix = offset
    local = moment + datetime.timedelta(minutes=minutes)
    return local.strftime("%Y-%m-%dT%H:%M:%S") + suffix


def _value(table: FeedTable, column: str, rng: random.Random, n: int) -> object:
    declared = affinity(table.types.get(column, ""))
    if column in table.flags:
        return rng.randint(0, 1)
    if declared == "INTEGER":
        return rng.randint(0, 480)
    if declared in ("REAL", "NUMERIC"):
        return round(rng.uniform(0.5, 900.0), 2)
    return f"{column} delta {n}"  # unique text: a UNIQUE column of the table must accept it


def feed_events(table: FeedTable, rng: random.Random, start: datetime.datetime) -> tuple[list[dict[str, object]], str]:
    """The events of a feed for `table` and its snapshot time: partial updates, deletes, inserts of new ids,
    a delete before an update and one after it, a re-insert after a delete, an update of a deleted row,
    stale events (a delete among them) and two events of one instant written in different offsets."""
    events: list[tuple[datetime.datetime, str, int, dict[str, object]]] = []
    counter = iter(range(1, 10_000))
    ids = list(range(1, table.rows + 1))
    rng.shuffle(ids)
    spare = ids + ids  # a small table gives several events to one row

    def at(minute: int) -> datetime.datetime:
        return start + datetime.timedelta(minutes=minute)

    def partial() -> dict[str, object]:
        chosen = rng.sample(table.others, min(len(table.others), rng.randint(1, 2)))
        return {c: _value(table, c, rng, next(counter)) for c in chosen}

    def full() -> dict[str, object]:
        return {c: _value(table, c, rng, next(counter)) for c in table.others}

    cut = 100
    for i in range(3):  # stale: already in the snapshot, a delete among them
        events.append((at(cut - 30 + 10 * i), "delete" if i == 1 else "upsert", spare[i], partial() if i != 1 else {}))
    events.append((at(cut), "upsert", spare[3], partial()))  # exactly at the snapshot time: stale too
    for i in range(4, 9):  # partial updates, two of them to one row
        events.append((at(cut + 7 * i), "upsert", spare[i], partial()))
    events.append((at(cut + 70), "upsert", spare[4], partial()))
    gone, back, late = spare[9], spare[10], spare[11]
    events.append((at(cut + 40), "delete", gone, {}))
    events.append((at(cut + 50), "upsert", gone, partial()))  # the row is gone: a partial update cannot insert
    events.append((at(cut + 20), "upsert", late, partial()))
    events.append((at(cut + 45), "delete", late, {}))  # the delete is newer than the update: it wins
    events.append((at(cut + 30), "delete", back, {}))
    events.append((at(cut + 80), "upsert", back, full()))  # a full event brings the row back
    tie = at(cut + 60)
    events.append((tie, "upsert", spare[5], partial()))
    events.append((tie, "upsert", spare[5], partial()))  # same instant: the larger seq wins
    second = len(events) - 1
    new = table.rows + 1
    events.append((at(cut + 25), "upsert", new, full()))
    events.append((at(cut + 65), "upsert", new, partial()))
    events.append((at(cut + 35), "upsert", new + 1, full()))
    events.append((at(cut + 55), "upsert", new + 2, partial()))  # unknown id, not every column: not inserted
    events.append((at(cut + 90), "delete", new + 5, {}))  # unknown id: nothing to delete
    records: list[dict[str, object]] = []
    offsets = [rng.choice(OFFSETS) for _ in events]
    offsets[second] = next(o for o in OFFSETS if o != offsets[second - 1])  # the tie: one instant, two spellings
    for seq, (moment, op, key, data) in enumerate(events, 1):
        record: dict[str, object] = {"seq": seq, "ts": _stamp(moment, offsets[seq - 1]), "op": op, "id": key}
        if op == "upsert":
            record["data"] = data
        records.append(record)
    rng.shuffle(records)
    return records, at(cut).strftime("%Y-%m-%dT%H:%M:%SZ")


def feed_text(records: list[dict[str, object]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records)
