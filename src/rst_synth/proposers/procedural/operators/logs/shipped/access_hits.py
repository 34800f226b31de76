"""What the access-log operators ship in common: the requests of a log in the common or combined format,
malformed lines skipped, as (client, UTC time, request, status, bytes); and each client's requests in
file order as (UTC time, bytes, an error?). A step renders these before its own module's code."""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator

TIME = r"\d{2}/[A-Za-z]{3}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4}"
LINE = re.compile(r"(\S+) \S+ \S+ \[(" + TIME + r')\] "([^"]*)" (\d{3}) (\d+|-)(\s.*)?')


def requests_of(text: str) -> Iterator[tuple[str, datetime.datetime, str, int, int]]:
    for line in text.split("\n"):
        match = LINE.fullmatch(line.rstrip("\r"))
        if match is None:
            continue
        try:
            when = datetime.datetime.strptime(match[2], "%d/%b/%Y:%H:%M:%S %z").astimezone(datetime.timezone.utc)  # noqa: UP017  # datetime.UTC needs 3.11: a task's python3 may be older
        except ValueError:
            continue
        yield match[1], when, match[3], int(match[4]), 0 if match[5] == "-" else int(match[5])


def client_hits(text: str) -> dict[str, list[tuple[datetime.datetime, int, bool]]]:
    hits: dict[str, list[tuple[datetime.datetime, int, bool]]] = {}
    for client, when, _, status, size in requests_of(text):
        hits.setdefault(client, []).append((when, size, status >= 400))
    return hits
