#!/usr/bin/env python3
"""Print the approximate prompt tokens of each llm-proposer stage for synthetic parents whose
solutions have 10, 50, 100, 200 and 400 lines (a markdown table).

Tokens are approximated as characters / 4, rounded up, system message included. Stages after
`extend` are measured with a representative 40-line candidate step. `extend_unbounded` is the
extend prompt with every budget lifted, for comparison.

usage: python3 scripts/prompt_budget.py [SIZE ...]
"""

from __future__ import annotations

import sys

from rst_synth.proposers.llm.budget import budget_rows, markdown_table


def main() -> int:
    sizes = tuple(int(a) for a in sys.argv[1:]) or (10, 50, 100, 200, 400)
    print(markdown_table(budget_rows(sizes)), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
