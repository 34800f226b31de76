"""Writes a deterministic, paginated orders API export; neighbouring pages overlap by two orders."""
import json
import random
import sys
from pathlib import Path

rng = random.Random(31337)
out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)

countries = ["DE", "FR", "NL", "PL", "SE"]
customers = []
for n in range(1, 19):
    customer = {"id": f"C-{n:03d}", "name": f"Customer {n}", "email": f"c{n}@shop.test"}
    if n % 7 != 0:  # a few legacy customers have no address on file
        customer["address"] = {"city": rng.choice(["North", "South", "East", "West"]) + "ville",
                               "country": rng.choice(countries)}
    customers.append(customer)
catalog = {f"SKU-{code}": f"{rng.randint(199, 8999) / 100:.2f}" for code in
           ["A10", "A11", "B20", "B21", "C30", "C31", "D40", "E50"]}

orders = []
for n in range(52):
    count = rng.choice([0, 1, 1, 2, 2, 3, 4]) if n % 13 else 0
    items = [{"sku": sku, "qty": rng.randint(1, 6), "unit_price": catalog[sku]}
             for sku in rng.sample(sorted(catalog), count)]
    orders.append({
        "id": f"ORD-{1001 + n}",
        "created_at": f"2026-03-{1 + n // 2:02d}T{8 + n % 10:02d}:{rng.randint(0, 59):02d}:00Z",
        "status": rng.choice(["paid", "paid", "paid", "pending", "refunded"]),
        "customer": rng.choice(customers),
        "items": items,
        "meta": {"source": rng.choice(["web", "app", "phone"]), "tags": rng.sample(["gift", "b2b", "promo"], 1)},
    })

starts = [0, 13, 26, 39]
for page, start in enumerate(starts, start=1):
    body = {"page": page, "per_page": 15, "next_page": page + 1 if page < len(starts) else None,
            "data": orders[start:start + 15]}
    (out / f"orders-page-{page}.json").write_text(json.dumps(body, indent=2) + "\n")
