"""Writes deterministic sensor readings: '<sensor> <value>' lines with comments and blanks."""
import random

rng = random.Random(20260430)
print("# sensor readings, one per line: <sensor> <value>")
for i in range(737):
    if i % 50 == 0:
        print(f"# batch {i // 50}")
    if i % 97 == 13:
        print()
    value = rng.gauss(41.5, 12.0) if rng.random() < 0.9 else rng.uniform(-20.0, 120.0)
    print(f"sensor-{rng.randint(1, 9)} {value:.3f}")
