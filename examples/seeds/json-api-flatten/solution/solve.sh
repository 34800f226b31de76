#!/bin/bash
# Reference solution: merge and de-duplicate the pages with jq, flatten to CSV, aggregate.
set -euo pipefail
mkdir -p /app/out
orders=$(mktemp)
jq -s '[.[].data[]] | unique_by(.id)' /app/api/orders-page-*.json > "$orders"

{
  echo "order_id,customer_id,country,status,sku,qty,unit_price,line_total"
  jq -r '.[] | . as $o | .items[]
      | [$o.id, $o.customer.id, ($o.customer.address.country // "unknown"), $o.status,
         .sku, .qty, .unit_price] | @tsv' "$orders" \
    | awk -F'\t' -v OFS=, '{ $1 = $1; print $0, sprintf("%.2f", $6 * $7) }'
} > /app/out/line_items.csv

jq '
  def country: .customer.address.country // "unknown";
  def total: [.items[] | .qty * (.unit_price | tonumber)] | add // 0;
  (map(select(.status == "paid"))) as $paid
  | {
      orders: length,
      orders_by_status: (group_by(.status) | map({key: .[0].status, value: length}) | from_entries),
      paid_revenue_by_country: ($paid | group_by(country)
        | map({key: (.[0] | country), value: ((map(total) | add) * 100 | round / 100)}) | from_entries),
      top_skus: ([$paid[].items[]] | group_by(.sku)
        | map({sku: .[0].sku, units: (map(.qty) | add)}) | sort_by(-.units, .sku) | .[:3])
    }' "$orders" > /app/out/summary.json
rm -f "$orders"
