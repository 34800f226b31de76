"""The C modules a defect step plants next to a project: each a small function with a stated contract,
a correct source and defects of the kind C code has (an off-by-one, a missing NUL, an overflow check
that overflows, a leak, a sign or range error), a command-line driver (one query per line in, one
answer per line out), and in Python (`shipped/<name>.py`) the reference answer and the generator of queries
the tests use.

The queries of each generator reach every defect of its module (the module's unit test compiles each
defective variant with the sanitizers and sees it fail); the Python reference is the contract.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from rst_synth.proposers.procedural.operators.compiled.shipped import histogram, money, percentile
from rst_synth.proposers.procedural.shipping import shipped_text


def shipped_c(name: str) -> str:
    """A C file of a module, kept as a real source file in `shipped/` (compiled by the module's tests)."""
    return shipped_text(f"{__package__}.shipped", name)


@dataclass(frozen=True)
class Module:
    """One plantable C module: `<name>.h`, `<name>.c`, and `<name>_cli.c` (the driver)."""

    name: str
    contract: str
    """The function's contract in words (the header's comment and the instruction)."""
    header: str
    """The declarations of `<name>.h` (its guard and comment are added when planted)."""
    source: str
    """The correct `<name>.c`."""
    defects: dict[str, tuple[str, str]]
    """Defect name -> (text of the correct source, the defective text); each occurs once in `source`."""
    driver: str
    """`<name>_cli.c`: reads one query per line of standard input, prints one answer per line."""
    python: ModuleType
    """The contract in Python (`shipped/<name>.py`): `reference(line)`, the answer the contract gives to a query,
    and `queries(rng)`, queries that reach every defect and random ones; the step renders both into its tests."""
    queries_text: str
    answers_text: str

    def planted(self, defect: str) -> str:
        good, bad = self.defects[defect]
        assert self.source.count(good) == 1, (self.name, defect)
        return self.source.replace(good, bad)

    def header_file(self) -> str:
        guard = f"{self.name.upper()}_H"
        return f"#ifndef {guard}\n#define {guard}\n\n/* {self.contract}. */\n{self.header}\n#endif\n"


PERCENTILE = Module(
    name="percentile",
    contract=(
        "`percentile(values, n, p, out)`: for `n > 0` and `0 < p <= 100`, "
        "sort a copy of `values[0..n-1]` ascending and store its element of rank `ceil(p / 100 * n)` (ranks "
        "start at 1, the product computed in `double`) in `*out`, then return 0; `values` itself is left as it "
        "was. For `n == 0` or any other `p` (NaN included) return -1 and leave `*out` alone"
    ),
    header="#include <stddef.h>\n\nint percentile(const double *values, size_t n, double p, double *out);\n",
    source=shipped_c("percentile.c"),
    defects={
        "rank_floor": (
            "size_t rank = (size_t)ceil(p / 100.0 * (double)n);",
            "size_t rank = (size_t)(p / 100.0 * (double)n) + 1;",
        ),
        "sorts_input": (
            "    memcpy(sorted, values, n * sizeof *sorted);\n    qsort(sorted, n, sizeof *sorted, ascending);",
            "    qsort((double *)values, n, sizeof *values, ascending);\n"
            "    memcpy(sorted, values, n * sizeof *sorted);",
        ),
        "leak": ("    free(sorted);\n    return 0;", "    return 0;"),
        "p_zero": ("!(p > 0.0 && p <= 100.0)", "p < 0.0 || p > 100.0"),
    },
    driver=shipped_c("percentile_cli.c"),
    python=percentile,
    queries_text="a percentile `P` followed by the values, separated by single spaces",
    answers_text="`ok VALUE` with `VALUE` printed by `%.17g`, or `error STATUS`, followed by ` modified` when "
    "the call changed `values`",
)

HISTOGRAM = Module(
    name="histogram",
    contract=(
        "`histogram(values, n, lo, hi, bins, counts)`: "
        "when `bins > 0` and `lo < hi`, set `counts[0..bins-1]` to the number of values in each of `bins` "
        "equal-width bins over `[lo, hi]` and return how many values were counted; a value `v` with "
        "`lo <= v <= hi` goes to bin `floor((v - lo) / (hi - lo) * bins)` (computed in `double`), except that "
        "a bin number of `bins` or more means the last bin (so `hi` itself is counted there); values below "
        "`lo`, above `hi` or NaN are not counted. Otherwise return -1 and leave `counts` alone"
    ),
    header="#include <stddef.h>\n\n"
    "long histogram(const double *values, size_t n, double lo, double hi, size_t bins, size_t *counts);\n",
    source=shipped_c("histogram.c"),
    defects={
        "top_edge": ("if (k >= bins)", "if (k > bins)"),
        "nan_counted": ("if (!(v >= lo && v <= hi))", "if (v < lo || v > hi)"),
        "no_reset": ("    for (size_t k = 0; k < bins; k++)\n        counts[k] = 0;\n", ""),
    },
    driver=shipped_c("histogram_cli.c"),
    python=histogram,
    queries_text="`LO HI BINS` followed by the values, separated by single spaces",
    answers_text="`COUNTED|C0 C1 ...` (the return value, then the bin counts) or `error STATUS`",
)

MONEY = Module(
    name="money",
    contract=(
        "`parse_cents(text, out)`: `text` is an amount when it is an optional `-`, "
        "one or more ASCII digits, then optionally `.` and exactly two digits, and nothing else (no spaces, no "
        "`+`); for an amount whose value in cents fits in a `long long` (from `LLONG_MIN` to `LLONG_MAX`), store "
        "that value in `*out` and return 0; return -1 for a text that is not an amount and -2 for an amount that "
        "does not fit, leaving `*out` alone in both cases, and never overflow a signed integer on the way"
    ),
    header="int parse_cents(const char *text, long long *out);\n",
    source=shipped_c("money.c"),
    defects={
        "wrapping_check": ("if (*cents > (limit - digit) / 10)", "if (*cents * 10 + digit > limit)"),
        "negative_limit": (
            "negative ? (unsigned long long)LLONG_MAX + 1u : (unsigned long long)LLONG_MAX",
            "(unsigned long long)LLONG_MAX",
        ),
        "three_decimals": ("|| !isdigit((unsigned char)p[2]) || p[3] != '\\0')", "|| !isdigit((unsigned char)p[2]))"),
        "bare_sign": ("if (digits == 0)", "if (digits == 0 && !negative)"),
        "signed_negate": ("-(long long)(cents - 1) - 1", "-(long long)cents"),
    },
    driver=shipped_c("money_cli.c"),
    python=money,
    queries_text="the text to parse (the line without its newline)",
    answers_text="`ok CENTS` or `error STATUS` (`-1` or `-2`)",
)

NUMERIC_MODULES: tuple[Module, ...] = (PERCENTILE, HISTOGRAM, MONEY)
