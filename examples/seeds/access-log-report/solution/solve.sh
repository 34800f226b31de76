#!/bin/bash
# Reference solution: count status codes and top clients with awk and sort.
set -euo pipefail
log=/app/logs/access.log
out=/app/report
test -s "$log"
mkdir -p "$out"
{
  echo "status,count"
  awk '{print $9}' "$log" | sort | uniq -c \
    | awk '{print $2 "," $1}' | sort -t, -k2,2nr -k1,1n
} > "$out/status_counts.csv"
awk '{print $1}' "$log" | sort | uniq -c \
  | awk '{print $2 " " $1}' | sort -k2,2nr -k1,1 | head -n 3 > "$out/top_clients.txt"
