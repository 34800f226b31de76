"""Inputs for the fuzz tests: random text, and valid inputs with random edits (so most examples get
past the first check and reach the code behind it). Time is bounded: 200 examples, a 5 s deadline,
and a fixed derandomized sequence on CI; RST_FUZZ_RANDOM=1 explores new inputs with 10x more."""

from __future__ import annotations

import os
from datetime import timedelta

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

_RANDOM = os.environ.get("RST_FUZZ_RANDOM", "") not in ("", "0")
FUZZ = settings(
    max_examples=2000 if _RANDOM else 200,
    deadline=timedelta(seconds=5),
    derandomize=not _RANDOM,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much],
)

# Characters that matter to the parsers: quotes, brackets, fences, newlines, NUL, non-ASCII.
_SPICY = st.sampled_from(
    list("\"'[]{}=#`~\\\n\r\t\x00 .,:-ü✓") + ["```", "[[", "]]", "\n\n", "nan", "inf", "-1", "1e999"]
)
_PIECE = st.one_of(st.text(max_size=30), _SPICY)


@st.composite
def mutated(draw: st.DrawFn, base: str, max_edits: int = 6) -> str:
    """`base` with a few random edits: deletions, insertions, duplications, truncation."""
    text = base
    for _ in range(draw(st.integers(0, max_edits))):
        where = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["delete", "insert", "duplicate", "truncate"]))
        if kind == "delete":
            text = text[:where] + text[where + draw(st.integers(1, 20)) :]
        elif kind == "insert":
            text = text[:where] + draw(_PIECE) + text[where:]
        elif kind == "duplicate":
            span = text[where : where + draw(st.integers(1, 40))]
            text = text[:where] + span * draw(st.integers(2, 4)) + text[where:]
        else:
            text = text[:where]
    return text


def text_or_mutated(base: str) -> st.SearchStrategy[str]:
    return st.one_of(st.text(max_size=400), mutated(base), mutated(base, max_edits=1))


def bytes_or_mutated(base: str) -> st.SearchStrategy[bytes]:
    """Raw bytes too: not UTF-8, NUL bytes, a byte-order mark."""
    return st.one_of(
        st.binary(max_size=400),
        text_or_mutated(base).map(lambda s: s.encode("utf-8", errors="surrogatepass")),
        mutated(base).map(lambda s: b"\xef\xbb\xbf" + s.encode("utf-8", errors="surrogatepass")),
    )


def one_line(message: str) -> bool:
    return "\n" not in message and "\r" not in message and message.strip() != ""
