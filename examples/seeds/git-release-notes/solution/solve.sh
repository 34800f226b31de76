#!/bin/bash
# Reference solution: build the changelog from git log, commit it, tag the release.
set -euo pipefail
cd /app/repo
export TZ=UTC
git log --reverse --format='%H%x09%an%x09%ae%x09%s' v1.0.0..main > /tmp/commits.tsv
release_date="$(git log -1 --date=format-local:%Y-%m-%d --format=%cd main)"
python3 - "$release_date" <<'PY' > CHANGELOG.md
import re
import sys

pattern = re.compile(r"^(?P<type>[a-z]+)(?:\((?P<scope>[^)]+)\))?(?P<bang>!)?: (?P<desc>.+)$")
sections = {"Breaking Changes": [], "Features": [], "Bug Fixes": [], "Performance": []}
titles = {"feat": "Features", "fix": "Bug Fixes", "perf": "Performance"}
authors = set()
for line in open("/tmp/commits.tsv"):
    sha, name, email, subject = line.rstrip("\n").split("\t", 3)
    authors.add((name, email))
    match = pattern.match(subject)
    if not match:
        continue
    scope = f"**{match['scope']}:** " if match["scope"] else ""
    bullet = f"- {scope}{match['desc']} ({sha[:7]})"
    if match["bang"]:
        sections["Breaking Changes"].append(bullet)
    if match["type"] in titles:
        sections[titles[match["type"]]].append(bullet)

print(f"# v1.1.0 ({sys.argv[1]})")
for title, bullets in sections.items():
    if bullets:
        print(f"\n## {title}\n")
        print("\n".join(bullets))
print("\n## Contributors\n")
for name, email in sorted(authors):
    print(f"- {name} <{email}>")
PY
# The release commit and its tag carry the tip's date, not the clock's: the same hashes in every run.
stamp="$(git log -1 --format=%cI main)"
export GIT_AUTHOR_DATE="$stamp" GIT_COMMITTER_DATE="$stamp"
git add CHANGELOG.md
git commit -q -m "chore(release): v1.1.0"
git tag -a v1.1.0 -m "Release v1.1.0"
