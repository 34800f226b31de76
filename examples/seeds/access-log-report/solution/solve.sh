#!/bin/bash
# Reference solution: count status codes and top clients with awk and sort.
set -euo pipefail
mkdir -p /app/report
{
  echo "status,count"
  awk '{print $9}' /app/logs/access.log | sort | uniq -c \
    | awk '{print $2 "," $1}' | sort -t, -k2,2nr -k1,1n
} > /app/report/status_counts.csv
awk '{print $1}' /app/logs/access.log | sort | uniq -c \
  | awk '{print $2 " " $1}' | sort -k2,2nr -k1,1 | head -n 3 > /app/report/top_clients.txt
