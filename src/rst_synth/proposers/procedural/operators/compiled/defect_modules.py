"""The C modules a defect step plants next to a project: each a small function with a stated contract,
a correct source and defects of the kind C code has (an off-by-one, a missing NUL, an overflow check
that overflows, a leak, a sign or range error), a command-line driver (one query per line in, one
answer per line out), and in Python the reference answer and the generator of queries the tests use.

The queries of each generator reach every defect of its module (the module's unit test compiles each
defective variant with the sanitizers and sees it fail); the Python reference is the contract.
"""

from __future__ import annotations

from dataclasses import dataclass

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
    reference: str
    """Python source of `reference(line) -> str`, the answer the contract gives to a query."""
    generator: str
    """Python source of `queries(rng) -> list[str]`: queries that reach every defect, and random ones."""
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
    reference="""
def reference(line):
    words = line.split()
    p, values = float(words[0]), [float(w) for w in words[1:]]
    if not values or not (0 < p <= 100):
        return "error -1"
    return "ok %.17g" % sorted(values)[math.ceil(p / 100 * len(values)) - 1]
""",
    generator="""
def queries(rng):
    fixed = ["50", "0 1 2 3", "100 3 1 2", "-5 1", "100.5 1", "nan 4 5", "25 4 3 2 1", "75 8 6 4 2",
             "100 7", "1e-9 5 6", "20 5 4 3 2 1", "40 9 8 7 6 5"]
    out = list(fixed)
    for _ in range(140):
        n = rng.randint(1, 40)
        p = rng.choice([rng.uniform(0.1, 100), 100, 50, 25, 10, 90, 99, 12.5, 5 * rng.randint(1, 20)])
        values = [rng.choice([repr(round(rng.uniform(-500, 500), 3) or 0.0), str(rng.randint(-9, 9)), "1e300"])
                  for _ in range(n)]
        out.append(" ".join([repr(float(p)), *values]))
    return out
""",
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
    reference="""
def reference(line):
    words = line.split()
    lo, hi, bins = float(words[0]), float(words[1]), int(words[2])
    if bins == 0 or not lo < hi:
        return "error -1"
    counts = [0] * bins
    for v in map(float, words[3:]):
        if lo <= v <= hi:
            counts[min(int((v - lo) / (hi - lo) * bins), bins - 1)] += 1
    return f"{sum(counts)}|" + " ".join(map(str, counts))
""",
    generator="""
def queries(rng):
    out = ["0 10 5 10 0 5 9.99", "0 10 0 1 2", "5 5 3 5", "0 1 4 nan 0.5 inf -inf 1", "-1 1 2 -1 1 0",
           "0 100 10 100 100 50", "1 0 3 0.5"]
    for _ in range(120):
        lo = rng.choice([0, -50, rng.uniform(-100, 100)])
        hi = lo + rng.choice([1, 10, 100, rng.uniform(0.5, 300)])
        bins = rng.randint(1, 12)
        values = [rng.choice([repr(rng.uniform(lo - 5, hi + 5)), repr(float(hi)), repr(float(lo)), "nan"])
                  for _ in range(rng.randint(0, 30))]
        out.append(" ".join([repr(float(lo)), repr(float(hi)), str(bins), *values]))
    return out
""",
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
    reference="""
def reference(line):
    if not re.fullmatch(r"-?[0-9]+(\\.[0-9]{2})?", line):
        return "error -1"
    sign = -1 if line.startswith("-") else 1
    cents = sign * int(line.lstrip("-").replace(".", "") + ("" if "." in line else "00"))
    return f"ok {cents}" if -2**63 <= cents <= 2**63 - 1 else "error -2"
""",
    generator="""
def queries(rng):
    out = ["0", "-0.00", "12.34", "-", "-.50", ".50", "1.", "1.2", "1.234", "+5", " 5", "5 ", "12a",
           "92233720368547758.07", "92233720368547758.08", "-92233720368547758.08", "-92233720368547758.09",
           "184467440737095516.16", "999999999999999999999", "-999999999999999999.99", "0000000000000000000012.00",
           "1844674407370955161", "18446744073709551616", "-", "--1", "1.5e3"]
    for _ in range(120):
        whole = str(rng.randint(0, 10 ** rng.randint(1, 19)))
        text = rng.choice(["", "-"]) + whole + rng.choice(["", f".{rng.randint(0, 99):02d}", ".5", ".123"])
        out.append(text)
    return out
""",
    queries_text="the text to parse (the line without its newline)",
    answers_text="`ok CENTS` or `error STATUS` (`-1` or `-2`)",
)

NUMERIC_MODULES: tuple[Module, ...] = (PERCENTILE, HISTOGRAM, MONEY)
