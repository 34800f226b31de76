#!/bin/bash
# Reference solution: pyproject with a console script, offline wheel build, system install.
set -euo pipefail
cat > /app/project/pyproject.toml <<'TOML'
[build-system]
requires = ["setuptools>=61", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "textstats"
dynamic = ["version"]
description = "Word statistics for plain-text files"
requires-python = ">=3.9"

[project.scripts]
textstats = "textstats:main"

[tool.setuptools]
py-modules = ["textstats"]

[tool.setuptools.dynamic]
version = { attr = "textstats.__version__" }
TOML
mkdir -p /app/dist /app/out
# The wheel's zip entries take this time, not the build's: the same wheel in every run.
export SOURCE_DATE_EPOCH=1735689600
python3 -m pip wheel --no-index --no-build-isolation --no-deps -w /app/dist /app/project
python3 -m pip install --no-index --break-system-packages /app/dist/textstats-*.whl
cd /
textstats --top 8 --json /app/data/notes-{1..4}.txt > /app/out/wordstats.json
