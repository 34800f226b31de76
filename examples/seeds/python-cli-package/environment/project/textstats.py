"""textstats: word statistics for plain-text files.

Run as a script for now: python3 textstats.py [--top N] [--json] FILE...
"""
import argparse
import collections
import json
import re
import sys

__version__ = "0.3.0"

WORD = re.compile(r"[a-z']+")


def words(text):
    """Lower-cased words; apostrophes at either end of a word are dropped."""
    found = (w.strip("'") for w in WORD.findall(text.lower()))
    return [w for w in found if w]


def summarise(paths, top):
    counts = collections.Counter()
    lines = 0
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        lines += len(text.splitlines())
        counts.update(words(text))
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    return {
        "files": len(paths),
        "lines": lines,
        "words": sum(counts.values()),
        "unique_words": len(counts),
        "top": [[word, n] for word, n in ranked],
    }


def main(argv=None):
    parser = argparse.ArgumentParser(prog="textstats", description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", help="UTF-8 text files")
    parser.add_argument("--top", type=int, default=10, help="how many frequent words to list")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    args = parser.parse_args(argv)
    result = summarise(args.files, args.top)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key in ("files", "lines", "words", "unique_words"):
            print(f"{key}: {result[key]}")
        for word, n in result["top"]:
            print(f"{n:6d} {word}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
