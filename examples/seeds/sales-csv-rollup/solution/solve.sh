#!/bin/bash
# Reference solution: aggregate the export with Python's csv and decimal modules.
set -euo pipefail
mkdir -p /app/report
python3 - <<'PY'
import csv
import json
from collections import defaultdict
from decimal import Decimal

cells = defaultdict(lambda: [0, 0, Decimal("0")])
by_region = defaultdict(Decimal)
by_month = defaultdict(Decimal)
by_product = defaultdict(Decimal)
done = cancelled = 0
with open("/app/data/sales.csv", newline="") as fh:
    for row in csv.DictReader(fh):
        if row["status"].strip() != "completed":
            cancelled += 1
            continue
        done += 1
        region = row["region"].strip().lower()
        month = row["order_date"][:7]
        qty = int(row["quantity"])
        amount = qty * Decimal(row["unit_price"])
        cell = cells[(region, month)]
        cell[0] += 1
        cell[1] += qty
        cell[2] += amount
        by_region[region] += amount
        by_month[month] += amount
        by_product[row["product"]] += amount

with open("/app/report/region_month.csv", "w", newline="") as out:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["region", "month", "orders", "units", "revenue"])
    for (region, month), (orders, units, revenue) in sorted(cells.items()):
        writer.writerow([region, month, orders, units, f"{revenue:.2f}"])

summary = {
    "completed_orders": done,
    "cancelled_orders": cancelled,
    "total_revenue": round(float(sum(by_region.values())), 2),
    "revenue_by_region": {r: round(float(v), 2) for r, v in sorted(by_region.items())},
    "best_month": min(by_month, key=lambda m: (-by_month[m], m)),
    "top_product": min(by_product, key=lambda p: (-by_product[p], p)),
}
with open("/app/report/summary.json", "w") as out:
    json.dump(summary, out, indent=2)
PY
