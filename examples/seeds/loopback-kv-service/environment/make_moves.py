"""Writes a deterministic stock-movement export (CSV)."""
import random

rng = random.Random(8765)
skus = [f"SKU-{n}" for n in rng.sample(range(100, 999), 14)]
warehouses = ["ams1", "fra2", "lon3"]
print("move_id,sku,warehouse,delta")
for move_id in range(1, 261):
    delta = rng.choice([rng.randint(1, 40), rng.randint(1, 40), -rng.randint(1, 30)])
    print(f"M{move_id:05d},{rng.choice(skus)},{rng.choice(warehouses)},{delta}")
