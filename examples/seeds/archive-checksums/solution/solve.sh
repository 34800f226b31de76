#!/bin/bash
# Reference solution: select files with find, archive them, hash them, restore and verify.
set -euo pipefail
export LC_ALL=C
mkdir -p /app/backup /app/restore
cd /app
find records -type f ! -name '*.tmp' ! -path '*/cache/*' | sort > /tmp/included.txt
find records \( -type f -o -type l \) | sort > /tmp/all.txt
comm -23 /tmp/all.txt /tmp/included.txt > /app/backup/excluded.txt
tar -czf /app/backup/records.tar.gz --no-recursion -T /tmp/included.txt
: > /app/backup/SHA256SUMS
while IFS= read -r path; do
  sha256sum -- "$path" >> /app/backup/SHA256SUMS
done < /tmp/included.txt
tar -xzf /app/backup/records.tar.gz -C /app/restore
cd /app/restore
sha256sum -c /app/backup/SHA256SUMS > /app/backup/verify.txt
