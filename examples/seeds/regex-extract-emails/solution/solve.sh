#!/bin/bash
# Reference solution: grep -oE per entity kind, normalize with tr/sed/awk, sort -u.
set -euo pipefail
export LC_ALL=C
out=/app/extracted
mkdir -p "$out"
text=$(mktemp)
cat /app/corpus/*.txt > "$text"

grep -oE '[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}' "$text" \
  | tr 'A-Z' 'a-z' | sort -u > "$out/emails.txt"

# Every accepted phone form ends in AAA?BBB?CCCC; keep the last ten digits.
grep -oE '\([0-9]{3}\) [0-9]{3}-[0-9]{4}|[0-9]{3}([-.])[0-9]{3}\1[0-9]{4}|\+1 [0-9]{3} [0-9]{3} [0-9]{4}' "$text" \
  | tr -cd '0-9\n' | sed -E 's/^.*([0-9]{10})$/+1\1/' | sort -u > "$out/phones.txt"

{
  grep -oE '[0-9]{4}-[0-9]{2}-[0-9]{2}' "$text" || true
  grep -oE '\b[0-9]{1,2}/[0-9]{1,2}/[0-9]{4}\b' "$text" \
    | awk -F/ '{printf "%s-%02d-%02d\n", $3, $1, $2}' || true
  grep -oE '(January|February|March|April|May|June|July|August|September|October|November|December) [0-9]{1,2}, [0-9]{4}' "$text" \
    | awk 'BEGIN {split("January February March April May June July August September October November December", m, " ");
                  for (i = 1; i <= 12; i++) num[m[i]] = i}
           {gsub(",", "", $2); printf "%s-%02d-%02d\n", $3, num[$1], $2}' || true
} | sort -u > "$out/dates.txt"

{
  echo "domain,count"
  cut -d@ -f2 "$out/emails.txt" | sort | uniq -c | awk '{print $2 "," $1}' | sort -t, -k2,2nr -k1,1
} > "$out/domains.csv"
rm -f "$text"
