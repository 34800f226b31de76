"""The text-handling C modules a defect step can plant: CSV quoting, UTF-8 validation, and a buffer of
the last lines of a stream (see defect_modules.py for what a module holds)."""

from __future__ import annotations

from rst_synth.proposers.procedural.operators.compiled.defect_modules import Module, shipped_c
from rst_synth.proposers.procedural.operators.compiled.shipped import csvfield, tail, utf8

CSV_FIELD = Module(
    name="csvfield",
    contract=(
        "`csv_field(field)`: return a newly allocated string (the caller frees it) holding "
        "`field` as one RFC 4180 CSV field: when `field` contains a comma, a double quote, a CR or an LF, or "
        "starts or ends with a space, it is enclosed in double quotes and every double quote in it is doubled; "
        "otherwise it is an exact copy; NULL only when memory runs out"
    ),
    header="char *csv_field(const char *field);\n",
    source=shipped_c("csvfield.c"),
    defects={
        "short_alloc": ("malloc(n + quotes + 3)", "malloc(n + quotes + 2)"),
        "copy_without_nul": ("memcpy(copy, field, n + 1);", "memcpy(copy, field, n);"),
        "quotes_not_doubled": ("        if (field[i] == '\"')\n            out[k++] = '\"';\n", ""),
        "trailing_space": ("(s[0] == ' ' || s[n - 1] == ' ')", "(s[0] == ' ')"),
    },
    driver=shipped_c("csvfield_cli.c"),
    python=csvfield,
    queries_text=(
        "the field, with LF, CR and backslash written as `\\n`, `\\r` and `\\\\` (a backslash before any other "
        "character stands for that character)"
    ),
    answers_text="the CSV field, escaped the same way",
)

UTF8 = Module(
    name="utf8",
    contract=(
        "`utf8_length(s, n)`: the number of code points in the `n` bytes at `s` "
        "when they are well-formed UTF-8 as RFC 3629 defines it (no overlong encodings, no surrogates "
        "U+D800..U+DFFF, nothing above U+10FFFF, no sequence cut short by the end), else -1; it never reads "
        "`s[n]` or beyond"
    ),
    header="#include <stddef.h>\n\nlong utf8_length(const unsigned char *s, size_t n);\n",
    source=shipped_c("utf8.c"),
    defects={
        "reads_past_end": ("        if (len > n - i)\n            return -1;\n", ""),
        "overlong": ("(len == 2 && cp < 0x80) || ", ""),
        "surrogates": ("(cp >= 0xD800 && cp <= 0xDFFF) || ", ""),
        "above_max": ("cp > 0x10FFFF", "cp > 0x1FFFFF"),
    },
    driver=shipped_c("utf8_cli.c"),
    python=utf8,
    queries_text="the bytes in hexadecimal, two digits each",
    answers_text="the length, or `-1`",
)

TAIL = Module(
    name="tail",
    contract=(
        "a buffer of the last `cap` lines of a stream (`cap > 0`): `tail_new(cap)` makes an empty one, "
        "`tail_push(t, line)` stores a copy of `line` (first dropping and freeing the oldest stored line when "
        "`cap` lines are held) and returns 0, `tail_count(t)` is the number of lines held, `tail_get(t, k)` the "
        "k-th of them, oldest first (`0 <= k < tail_count(t)`), and `tail_free(t)` frees the buffer and every "
        "line it holds; nothing leaks"
    ),
    header="#include <stddef.h>\n\nstruct tail;\n\n"
    "struct tail *tail_new(size_t cap);\nint tail_push(struct tail *t, const char *line);\n"
    "size_t tail_count(const struct tail *t);\nconst char *tail_get(const struct tail *t, size_t k);\n"
    "void tail_free(struct tail *t);\n",
    source=shipped_c("tail.c"),
    defects={
        "leaks_evicted": ("        free(t->lines[t->start]);\n", ""),
        "ignores_start": ("return t->lines[(t->start + k) % t->cap];", "return t->lines[k % t->cap];"),
        "frees_one_less": ("for (size_t k = 0; k < t->count; k++)", "for (size_t k = 1; k < t->count; k++)"),
    },
    driver=shipped_c("tail_cli.c"),
    python=tail,
    queries_text="`CAP|LINE|LINE|...`: the capacity, then the lines pushed in order (no line holds `|`)",
    answers_text="`COUNT|LINE|...`: `tail_count`, then the lines held, oldest first",
)

TEXT_MODULES: tuple[Module, ...] = (CSV_FIELD, UTF8, TAIL)
