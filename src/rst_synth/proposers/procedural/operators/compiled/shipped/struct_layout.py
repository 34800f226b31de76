"""What `c-struct-layout` ships: the tool that computes the x86-64 (LP64) memory layout of the structs a C
header defines (its `main`, written to an executable file), the headers the tests make up, and the tests
that compare the tool's JSON with what gcc itself says (`sizeof`, `_Alignof`, `offsetof` in a program the
tests compile). The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import json
import pathlib
import random
import re
import subprocess
import sys
from typing import Any

from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, run_tool

TOOL = "/app/bin/tally_struct_layout"
HEADERS = ["/app/src/tally.h"]
OUT = "/app/layout/tally_structs.json"
COMPILER = "gcc"
SEED = 1

SCALARS = {
    "char": 1,
    "signed char": 1,
    "unsigned char": 1,
    "_Bool": 1,
    "bool": 1,
    "int8_t": 1,
    "uint8_t": 1,
    "short": 2,
    "unsigned short": 2,
    "int16_t": 2,
    "uint16_t": 2,
    "int": 4,
    "unsigned": 4,
    "float": 4,
    "int32_t": 4,
    "uint32_t": 4,
    "long": 8,
    "unsigned long": 8,
    "long long": 8,
    "unsigned long long": 8,
    "double": 8,
    "size_t": 8,
    "ssize_t": 8,
    "ptrdiff_t": 8,
    "intptr_t": 8,
    "uintptr_t": 8,
    "int64_t": 8,
    "uint64_t": 8,
    "long double": 16,
}
"""Type -> size in bytes on x86-64 Linux; each is aligned to its size."""

_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)
_STRUCT = re.compile(r"\bstruct\s+([A-Za-z_]\w*)\s*\{([^{}]*)\}")
_FIRST = re.compile(r"\s*(.*?)\s*(\**)\s*([A-Za-z_]\w*)\s*((?:\[\s*\d+\s*\]\s*)*)")
_MORE = re.compile(r"\s*(\**)\s*([A-Za-z_]\w*)\s*((?:\[\s*\d+\s*\]\s*)*)")


def base_type(text: str) -> str:
    """The type's name as SCALARS spells it: `const` and `volatile` dropped, a trailing `int` after another word too."""
    words = [w for w in text.split() if w not in ("const", "volatile")]
    return " ".join(words[:-1] if len(words) > 1 and words[-1] == "int" else words)


def layout(paths: list[str]) -> dict[str, dict[str, Any]]:
    """Every struct the headers define, in order: its size, alignment, padding, members and reordered size."""
    return layout_of([(path, pathlib.Path(path).read_text(encoding="utf-8")) for path in paths])


def layout_of(headers: list[tuple[str, str]]) -> dict[str, dict[str, Any]]:
    """`layout` of (path, text) pairs."""
    found: dict[str, dict[str, Any]] = {}
    shapes: dict[str, tuple[int, int]] = {}
    for path, text in headers:
        text = re.sub(r"^[ \t]*#[^\n]*", "", _COMMENT.sub(" ", text), flags=re.MULTILINE)
        for match in _STRUCT.finditer(text):
            name = match.group(1)
            if name in found:
                raise ValueError("struct " + name + " defined twice")
            members = []
            for decl in (d.strip() for d in match.group(2).split(";")):
                if not decl:
                    continue
                parts = decl.split(",")
                first = _FIRST.fullmatch(parts[0])
                if first is None or not first.group(1):
                    raise ValueError("cannot read member: " + decl)
                kind = base_type(first.group(1))
                more = [m.groups() if (m := _MORE.fullmatch(p)) else None for p in parts[1:]]
                declarators = [first.groups()[1:], *more]
                for declarator in declarators:
                    if declarator is None:
                        raise ValueError("cannot read member: " + decl)
                    stars, member, dims = declarator
                    if stars:
                        size = align = 8
                    elif kind.startswith("struct "):
                        if kind[7:].strip() not in shapes:
                            raise ValueError("unknown struct: " + kind)
                        size, align = shapes[kind[7:].strip()]
                    elif kind in SCALARS:
                        size = align = SCALARS[kind]
                    else:
                        raise ValueError("unknown type: " + kind)
                    for n in re.findall(r"\d+", dims):
                        size *= int(n)
                    members.append((member, size, align))
            if not members:
                raise ValueError("struct " + name + " has no members")
            size, align, placed = place(members)
            reordered, _, _ = place(sorted(members, key=lambda m: -m[2]))
            shapes[name] = (size, align)
            found[name] = {
                "file": path,
                "size": size,
                "align": align,
                "padding": size - sum(m[1] for m in members),
                "reordered_size": reordered,
                "members": [
                    {"name": n, "offset": off, "size": z} for (n, z, _), off in zip(members, placed, strict=True)
                ],
            }
    return found


def place(members: list[tuple[str, int, int]]) -> tuple[int, int, list[int]]:
    """C's layout rule: each member at the next multiple of its alignment, the size rounded up to the largest."""
    offset, align, offsets = 0, 1, []
    for _, size, member_align in members:
        offset = -(-offset // member_align) * member_align
        offsets.append(offset)
        offset += size
        align = max(align, member_align)
    return -(-offset // align) * align, align, offsets


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: " + argv[0] + " HEADER...", file=sys.stderr)
        return 2
    try:
        found = layout(argv[1:])
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        print("cannot lay out: " + str(exc), file=sys.stderr)
        return 2
    print(json.dumps(found, indent=2))
    return 0


def random_header(rng: random.Random, prefix: str) -> tuple[str, list[tuple[str, list[str]]]]:
    """A header of three to five structs (a later one may hold an earlier one) and each struct's members."""
    types = ["char", "unsigned char", "short", "unsigned short", "int", "unsigned", "float", "long", "double"]
    types += ["unsigned int", "long int", "long long", "size_t", "uint8_t", "int16_t", "uint32_t", "int64_t"]
    types += ["_Bool", "long double"]
    lines = ["#include <stddef.h>", "#include <stdint.h>", "#include <stdbool.h>", "", "/* generated { layout } */"]
    structs: list[tuple[str, list[str]]] = []
    for k in range(rng.randint(3, 5)):
        name = f"{prefix}_s{k}"
        members: list[str] = []
        body = []
        for j in range(rng.randint(1, 6)):
            kind = rng.choice(types + [f"struct {s}" for s, _ in structs])
            member = f"m{j}"
            shape = rng.choice(["", "", "*", "[3]", "[2][5]"])
            if shape == "*":
                body.append(f"    const {kind} *{member}; // a pointer")
            elif shape != "*" and rng.random() < 0.4 and body and body[-1].endswith(";"):
                body[-1] = body[-1].rstrip(";") + f", {member}{shape};"
            else:
                body.append(f"    {kind} {member}{shape};")
            members.append(member)
        lines += [f"struct {name} {{", *body, "};", ""]
        structs.append((name, members))
    return "\n".join(lines) + "\n", structs


def gcc_layout(header: pathlib.Path, structs: list[tuple[str, list[str]]], tmp: pathlib.Path) -> dict[str, Any]:
    """What the compiler says: size, alignment and each member's offset and size, by a program it builds."""
    prints = []
    for name, members in structs:
        prints.append(f'printf("S %s %zu %zu\\n", "{name}", sizeof(struct {name}), _Alignof(struct {name}));')
        for m in members:
            prints.append(
                f'printf("M %s %zu %zu\\n", "{m}", offsetof(struct {name}, {m}), sizeof(((struct {name} *)0)->{m}));'
            )
    program = tmp / "probe.c"
    program.write_text(
        f'#include <stdio.h>\n#include <stddef.h>\n#include "{header.name}"\nint main(void) {{\n'
        + "\n".join(prints)
        + "\nreturn 0;\n}\n",
        encoding="utf-8",
    )
    subprocess.run([COMPILER, "-std=c11", "-I", str(header.parent), "-o", str(tmp / "probe"), str(program)], check=True)
    said: dict[str, Any] = {}
    current: list[dict[str, int | str]] = []
    for line in subprocess.run([str(tmp / "probe")], capture_output=True, check=True, text=True).stdout.splitlines():
        tag, name, a, b = line.split()
        if tag == "S":
            current = []
            said[name] = {"size": int(a), "align": int(b), "members": current}
        else:
            current.append({"name": name, "offset": int(a), "size": int(b)})
    return said


def assert_matches(got: dict[str, Any], truth: dict[str, Any], want: dict[str, Any]) -> None:
    assert sorted(got) == sorted(truth), (sorted(got), sorted(truth))
    for name, said in truth.items():
        mine = got[name]
        assert isinstance(mine, dict) and isinstance(said, dict)
        for key in ("size", "align", "members"):
            assert mine[key] == said[key], (name, key, mine[key], said[key])
        for key in ("padding", "reordered_size", "file"):
            assert mine[key] == want[name][key], (name, key, mine[key], want[name][key])


def test_layout_of_the_project_headers(tmp_path: pathlib.Path) -> None:
    got = json.loads(pathlib.Path(OUT).read_text(encoding="utf-8"))
    want = layout(HEADERS)
    assert sorted(got) == sorted(want)
    for name, fields in want.items():
        assert {k: got[name][k] for k in fields} == fields, name


def test_tool_on_generated_headers(tmp_path: pathlib.Path) -> None:
    rng = random.Random(SEED)
    for k in range(3):
        folder = tmp_path / str(k)
        folder.mkdir()
        text, structs = random_header(rng, f"g{k}")
        header = folder / f"gen{k}.h"
        header.write_text(text, encoding="utf-8")
        done = run_tool(TOOL, header)
        assert done.returncode == 0, (k, done.stderr[-300:])
        got = json.loads(done.stdout)
        want = layout([str(header)])
        assert_matches(got, gcc_layout(header, structs, folder), want)


def test_tool_refuses_what_it_cannot_lay_out(tmp_path: pathlib.Path) -> None:
    unknown = tmp_path / "unknown.h"
    unknown.write_text("struct a { int x; };\nstruct b { struct missing m; };\n", encoding="utf-8")
    twice = tmp_path / "twice.h"
    twice.write_text("struct a { int x; };\n", encoding="utf-8")
    for args in ([], [tmp_path / "absent.h"], [unknown], [unknown, twice]):
        assert_usage_error(run_tool(TOOL, *args), args)
