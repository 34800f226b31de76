#!/bin/bash
# Builds a deterministic git history in /app/repo: fixed names, e-mails and dates.
set -euo pipefail
export TZ=UTC
repo=/app/repo
git init -q -b main "$repo"
cd "$repo"
git config user.name "Release Bot"
git config user.email "release-bot@example.com"
day=0

commit() {  # commit <author> <email> <file> <subject> [body]
  day=$((day + 1))
  local stamp
  stamp="$(printf '2025-02-%02dT%02d:%02d:00+0000' $(( (day + 1) / 2 )) $(( 15 - 6 * (day % 2) )) $(( (day * 7) % 60 )))"
  mkdir -p "$(dirname "$3")"
  echo "$4" >> "$3"
  git add "$3"
  GIT_AUTHOR_NAME="$1" GIT_AUTHOR_EMAIL="$2" GIT_AUTHOR_DATE="$stamp" \
  GIT_COMMITTER_NAME="$1" GIT_COMMITTER_EMAIL="$2" GIT_COMMITTER_DATE="$stamp" \
    git commit -q -m "$4" ${5:+-m "$5"}
}

commit "Ada Byron" ada@example.com README.md "Initial import of tabread"
commit "Ada Byron" ada@example.com src/reader.py "feat: read comma-separated tables"
commit "Grace Hopper" grace@example.com src/cli.py "feat(cli): add tabread command"
commit "Ada Byron" ada@example.com tests/test_reader.py "test: add reader tests"
commit "Grace Hopper" grace@example.com src/reader.py "fix: strip the byte order mark"
GIT_COMMITTER_NAME="Ada Byron" GIT_COMMITTER_EMAIL=ada@example.com GIT_COMMITTER_DATE="2025-02-03T12:00:00+0000" \
  git tag -a v1.0.0 -m "Release v1.0.0"

commit "Linus Pauling" linus@example.com src/parser.py "feat(parser): support quoted fields"
commit "Grace Hopper" grace@example.com src/reader.py "fix: handle an empty input file"
commit "Ada Byron" ada@example.com docs/usage.md "docs: describe the --strict flag"
commit "Margaret Hamilton" margaret@example.com fixtures/deps.txt "chore(deps): bump test fixtures"
commit "Linus Pauling" linus@example.com src/cli.py "feat(cli): add a --version flag"
commit "Margaret Hamilton" margaret@example.com src/parser.py "perf(parser): avoid copying rows twice"
commit "Grace Hopper" grace@example.com src/cli.py "fix(cli): exit non-zero on an unknown option"
commit "Ada Byron" ada@example.com src/reader.py "refactor: move the reader into its own module"
commit "Barbara Liskov" barbara@example.com tests/test_parser.py "test: cover the quoted-field parser"
commit "Linus Pauling" linus@example.com src/api.py "feat(api)!: rename load() to read_table()" "Callers must switch to read_table()."
commit "Barbara Liskov" barbara@example.com src/parser.py "fix(parser): keep a trailing empty column"
commit "Ada Byron" ada@example.com README.md "Update README"
commit "Margaret Hamilton" margaret@example.com src/patterns.py "perf: cache compiled patterns"
commit "Grace Hopper" grace@example.com src/errors.py "fix: correct a typo in an error message"
commit "Barbara Liskov" barbara@example.com .ci/pipeline.yml "ci: run the tests on every push"
commit "Linus Pauling" linus@example.com src/writer.py "feat: write tables back as TSV"
