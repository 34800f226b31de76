"""Writes a deterministic sales export (CSV) with messy region labels and cancelled orders."""
import csv
import random
import sys

rng = random.Random(20260415)
regions = ["north", "south", "east", "west"]
products = {"widget": "4.99", "gadget": "12.50", "gizmo": "7.25", "doohickey": "19.99", "sprocket": "0.85"}


def messy(region):
    style = rng.randrange(5)
    if style == 0:
        return region.upper()
    if style == 1:
        return region.capitalize()
    if style == 2:
        return f" {region} "
    return region


writer = csv.writer(sys.stdout, lineterminator="\n")
writer.writerow(["order_id", "order_date", "region", "product", "quantity", "unit_price", "status"])
for i in range(1, 601):
    month = rng.randint(1, 6)
    day = rng.randint(1, 28)
    product = rng.choice(sorted(products))
    price = products[product]
    if rng.random() < 0.15:  # occasional discounted price
        price = f"{float(price) * 0.9:.2f}"
    status = "cancelled" if rng.random() < 0.12 else "completed"
    writer.writerow([
        f"SO-{10000 + i}",
        f"2025-{month:02d}-{day:02d}",
        messy(rng.choice(regions)),
        product,
        rng.randint(1, 40),
        price,
        status,
    ])
