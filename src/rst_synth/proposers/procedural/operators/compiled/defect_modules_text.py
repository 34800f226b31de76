"""The text-handling C modules a defect step can plant: CSV quoting, UTF-8 validation, and a buffer of
the last lines of a stream (see defect_modules.py for what a module holds)."""

from __future__ import annotations

from rst_synth.proposers.procedural.operators.compiled.defect_modules import Module, shipped_c

ESCAPES_C = """
/* Queries and answers escape LF, CR and backslash as \\\\n, \\\\r and \\\\\\\\ to keep one per line. */
static size_t unescape(const char *in, char *out)
{
    size_t k = 0;
    for (size_t i = 0; in[i] != '\\0'; i++) {
        if (in[i] == '\\\\' && in[i + 1] != '\\0') {
            i++;
            out[k++] = in[i] == 'n' ? '\\n' : in[i] == 'r' ? '\\r' : in[i];
        } else {
            out[k++] = in[i];
        }
    }
    out[k] = '\\0';
    return k;
}

static void put_escaped(const char *s)
{
    for (; *s != '\\0'; s++) {
        if (*s == '\\n')
            fputs("\\\\n", stdout);
        else if (*s == '\\r')
            fputs("\\\\r", stdout);
        else if (*s == '\\\\')
            fputs("\\\\\\\\", stdout);
        else
            putchar(*s);
    }
}
"""

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
    reference="""
def unescape(text):
    return re.sub(r"\\\\(.)", lambda m: {"n": "\\n", "r": "\\r"}.get(m.group(1), m.group(1)), text)


def escape(text):
    return text.replace("\\\\", "\\\\\\\\").replace("\\n", "\\\\n").replace("\\r", "\\\\r")


def reference(line):
    field = unescape(line)
    if field.startswith(" ") or field.endswith(" ") or any(c in field for c in ',"\\r\\n'):
        field = '"' + field.replace('"', '""') + '"'
    return escape(field)
""",
    generator="""
def queries(rng):
    out = ["plain", "", "a,b", 'say "hi"', '"', '""', " lead", "trail ", " ", "two\\\\nlines", "cr\\\\rhere",
           "back\\\\\\\\slash", "Zürich", "x" * 40 + ",", '"' * 9]
    pool = ["a", "b", " ", ",", '"', "\\\\n", "\\\\r", "\\\\\\\\", "é", "東", "z", "0"]
    for _ in range(150):
        out.append("".join(rng.choice(pool) for _ in range(rng.randint(0, 24))))
    return out
""",
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
    reference="""
def reference(line):
    try:
        return str(len(bytes.fromhex(line).decode("utf-8")))
    except UnicodeDecodeError:
        return "-1"
""",
    generator="""
def queries(rng):
    out = ["", "41", "c380", "c080", "e282ac", "e080af", "eda080", "f4908080", "f48fbfbf", "f0908d88", "e282",
           "f09f98", "ff", "80", "c3", "41c3", "efbbbf41", "f7bfbfbf"]
    pieces = ["41", "7a", "c3a9", "e69db1", "f09f9880", "80", "c0af", "eda0bd", "f4908080", "e2", "f0", "c3"]
    for _ in range(150):
        out.append("".join(rng.choice(pieces[:5] if rng.random() < 0.5 else pieces) for _ in range(rng.randint(0, 9))))
    return out
""",
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
    reference="""
def reference(line):
    words = line.split("|")
    held = words[1:][-int(words[0]):]
    return "|".join([str(len(held)), *held])
""",
    generator="""
def queries(rng):
    out = ["1|a", "1|a|b|c", "3|x|y", "3|a|b|c|d|e", "2|", "4|one|two|three|four"]
    for _ in range(120):
        cap = rng.randint(1, 8)
        lines = [rng.choice(["", "GET /", "error", "Zürich", "a b", "x" * rng.randint(1, 30)]) + str(i)
                 for i in range(rng.randint(0, 20))]
        out.append("|".join([str(cap), *lines]))
    return out
""",
    queries_text="`CAP|LINE|LINE|...`: the capacity, then the lines pushed in order (no line holds `|`)",
    answers_text="`COUNT|LINE|...`: `tail_count`, then the lines held, oldest first",
)

TEXT_MODULES: tuple[Module, ...] = (CSV_FIELD, UTF8, TAIL)
