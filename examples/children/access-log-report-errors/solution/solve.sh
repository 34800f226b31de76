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
# New step: error figures from the status report and the log.
total=$(awk -F, 'NR > 1 {s += $2} END {print s}' /app/report/status_counts.csv)
errors=$(awk -F, 'NR > 1 && $1 >= 400 {s += $2} END {print s + 0}' /app/report/status_counts.csv)
worst=$(awk '$9 >= 400 {print $7}' /app/logs/access.log | sort | uniq -c \
  | awk '{print $2 " " $1}' | sort -k2,2nr -k1,1 | head -n 3 \
  | awk 'BEGIN {ORS=","} {printf "{\"path\": \"%s\", \"errors\": %d},", $1, $2}' | sed 's/,*$//')
python3 - "$total" "$errors" "[$worst]" <<'PY' > /app/report/errors.json
import json, sys
total, errors, worst = int(sys.argv[1]), int(sys.argv[2]), json.loads(sys.argv[3])
print(json.dumps({"total_requests": total, "error_requests": errors,
                  "error_rate": round(errors / total, 4), "worst_paths": worst}, indent=2))
PY
