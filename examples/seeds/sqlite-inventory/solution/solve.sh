#!/bin/bash
# Reference solution: create the view and export the report with the sqlite3 CLI.
set -euo pipefail
db=/app/inventory.db
sqlite3 "$db" <<'SQL'
DROP VIEW IF EXISTS low_stock;
CREATE VIEW low_stock AS
SELECT p.sku AS sku,
       w.code AS warehouse,
       s.quantity AS quantity,
       p.reorder_level AS reorder_level,
       p.reorder_level - s.quantity AS shortfall
FROM stock AS s
JOIN products AS p ON p.id = s.product_id
JOIN warehouses AS w ON w.id = s.warehouse_id
WHERE p.discontinued = 0 AND s.quantity < p.reorder_level;
SQL
mkdir -p /app/reports
sqlite3 -csv -header "$db" > /app/reports/category_value.csv <<'SQL'
SELECT p.category AS category,
       COUNT(DISTINCT p.id) AS products,
       COALESCE(SUM(s.quantity), 0) AS units,
       printf('%.2f', COALESCE(SUM(s.quantity * p.unit_cost_cents), 0) / 100.0) AS value
FROM products AS p
LEFT JOIN stock AS s ON s.product_id = p.id
GROUP BY p.category
ORDER BY COALESCE(SUM(s.quantity * p.unit_cost_cents), 0) DESC, p.category ASC;
SQL
