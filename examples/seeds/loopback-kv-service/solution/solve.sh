#!/bin/bash
# Reference solution: start kvd on loopback, load aggregated totals with curl, report from it.
set -euo pipefail
base=http://127.0.0.1:8765
mkdir -p /app/report
nohup python3 /opt/kvd/kvd.py --host 127.0.0.1 --port 8765 >>/var/log/kvd.log 2>&1 </dev/null &
for _ in $(seq 1 50); do
  curl -sf "$base/health" >/dev/null && break
  sleep 0.2
done
curl -sf "$base/health" >/dev/null
# Net stock per SKU and row count per warehouse, loaded with PUT.
awk -F, 'NR > 1 {stock[$2] += $4; moves[$3]++}
  END {for (s in stock) print "stock:" s, stock[s]; for (w in moves) print "moves:" w, moves[w]}' \
  /app/data/stock_moves.csv | while read -r key value; do
  curl -sf -X PUT --data-binary "$value" "$base/kv/$key" >/dev/null
done
# Read the totals back from the service for the report.
keys=$(curl -sf "$base/keys?prefix=stock:" | tr -d '[]" \n' | tr ',' ' ')
for key in $keys; do
  echo "${key#stock:} $(curl -sf "$base/kv/$key")"
done | awk '$2 < 150' | sort -k2,2n -k1,1 > /app/report/low_stock.txt
