#!/usr/bin/env bash
# The project's full test command (the README's, and what CI runs): set the machine up (what the
# package needs, then what only the tests use), then lint, format check, type check, the import
# contract and the test suite, all with the interpreter of .venv/.
# Arguments go to pytest; its exit status is this script's.
#
# Environment:
#   RST_SKIP_LINT=1      skip ruff, mypy and lint-imports (quick local runs; CI runs every stage)
#   RST_TEST_WORKERS=N   pytest processes (default 2: most of a Docker test is waiting on the engine, so
#                        two share the machine's cores well; each labels its own containers)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
stage() { printf '==> %s\n' "$*"; }

stage "setup: bash scripts/setup-machine.sh && bash scripts/setup-tests.sh"
bash scripts/setup-machine.sh
bash scripts/setup-tests.sh

py=.venv/bin/python
[ -x "$py" ] || { echo "no $py: run scripts/setup-machine.sh without RST_SKIP_PIP=1" >&2; exit 1; }

if [ "${RST_SKIP_LINT:-0}" = 1 ]; then
  stage "lint: skipped (RST_SKIP_LINT=1)"
else
  stage "lint: ruff check src tests"
  "$py" -m ruff check src tests
  stage "format: ruff format --check src tests"
  "$py" -m ruff format --check src tests
  stage "types: mypy"
  "$py" -m mypy
  stage "imports: lint-imports (the layers of docs/architecture.md, no cycles)"
  .venv/bin/lint-imports --no-cache --no-logo
fi

workers="${RST_TEST_WORKERS:-2}"
# A file's tests stay in one process: module fixtures (a Ray cluster, a synthesized run) are made once.
stage "tests: pytest -q --durations=20 -n $workers --dist loadfile${*:+ $*}"
exec "$py" -m pytest -q --durations=20 -n "$workers" --dist loadfile "$@"
