"""Writes deterministic CSV files (with header lines) for the inventory tables into argv[1]."""
import csv
import random
import sys
from pathlib import Path

rng = random.Random(20260422)
out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)


def write(name, header, rows):
    with (out / f"{name}.csv").open("w", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


warehouses = [(1, "AMS", "Amsterdam"), (2, "LYS", "Lyon"), (3, "POZ", "Poznan")]
write("warehouses", ["id", "code", "city"], warehouses)

categories = ["cables", "fasteners", "lighting", "tools", "adhesives"]
nouns = ["bracket", "clamp", "cord", "driver", "glue", "hinge", "lamp", "plug", "screw", "tape"]
products = []
for pid in range(1, 61):
    products.append((
        pid,
        f"SKU-{rng.choice('ABCDEFGH')}{pid:04d}",
        f"{rng.choice(['mini', 'heavy', 'pro', 'basic', 'long'])} {rng.choice(nouns)}",
        categories[(pid * 7) % len(categories)],
        rng.randint(35, 8999),
        rng.choice([5, 10, 20, 25, 50]),
        1 if rng.random() < 0.1 else 0,
    ))
write("products", ["id", "sku", "name", "category", "unit_cost_cents", "reorder_level", "discontinued"], products)

stock = []
for pid, *_ in products:
    if pid % 17 == 0:
        continue  # never stocked anywhere
    for wid, _, _ in warehouses:
        if rng.random() < 0.8:
            stock.append((pid, wid, rng.choice([0, rng.randint(1, 30), rng.randint(20, 400)])))
write("stock", ["product_id", "warehouse_id", "quantity"], stock)
