"""Checks of the extracted lists, computed from the corpus with independent patterns."""
import collections
import csv
import re
from datetime import datetime
from pathlib import Path

CORPUS = Path("/app/corpus")
OUT = Path("/app/extracted")

EMAIL = re.compile(r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}(?![A-Za-z0-9-])")
PHONES = [
    re.compile(r"\((\d{3})\) (\d{3})-(\d{4})(?!\d)"),
    re.compile(r"(?<![\d.-])(?:\+?1-)?(\d{3})-(\d{3})-(\d{4})(?![\d-])"),
    re.compile(r"(?<![\d.])(\d{3})\.(\d{3})\.(\d{4})(?!\d)"),
    re.compile(r"\+1 (\d{3}) (\d{3}) (\d{4})(?!\d)"),
]
MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"


def text():
    return "\n".join(p.read_text() for p in sorted(CORPUS.glob("*.txt")))


def lines(name):
    return [line for line in (OUT / name).read_text().splitlines() if line.strip()]


def expected_emails():
    return sorted({m.lower() for m in EMAIL.findall(text())})


def expected_phones():
    found = set()
    for pattern in PHONES:
        found |= {"+1" + "".join(groups) for groups in pattern.findall(text())}
    return sorted(found)


def expected_dates():
    body, found = text(), set()
    for m in re.findall(r"(?<!\d)\d{4}-\d{2}-\d{2}(?!\d)", body):
        found.add(datetime.strptime(m, "%Y-%m-%d").date())
    for m in re.findall(r"(?<![\d/])\d{1,2}/\d{1,2}/\d{4}(?!\d)", body):
        found.add(datetime.strptime(m, "%m/%d/%Y").date())
    for m in re.findall(rf"(?:{MONTHS}) \d{{1,2}}, \d{{4}}", body):
        found.add(datetime.strptime(m, "%B %d, %Y").date())
    return sorted(d.isoformat() for d in found)


def test_corpus_intact():
    files = sorted(CORPUS.glob("*.txt"))
    assert len(files) == 6
    assert "root@localhost" in text()


def test_emails():
    got = lines("emails.txt")
    assert got == expected_emails()
    assert not any(addr.endswith("@localhost") for addr in got)


def test_phones():
    assert lines("phones.txt") == expected_phones()


def test_dates():
    assert lines("dates.txt") == expected_dates()


def test_lists_sorted_unique_normalized():
    for name, shape in [("emails.txt", r"[a-z0-9._%+-]+@[a-z0-9.-]+"), ("phones.txt", r"\+1\d{10}"),
                        ("dates.txt", r"\d{4}-\d{2}-\d{2}")]:
        got = lines(name)
        assert got == sorted(set(got)), name
        assert all(re.fullmatch(shape, item) for item in got), name


def test_domains_csv():
    counts = collections.Counter(addr.split("@", 1)[1] for addr in expected_emails())
    expected = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    rows = list(csv.reader((OUT / "domains.csv").open()))
    assert rows[0] == ["domain", "count"]
    assert [(d, int(c)) for d, c in rows[1:]] == expected
