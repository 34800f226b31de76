"""Writes a deterministic access log in combined log format."""
import random

rng = random.Random(20260401)
clients = [f"10.0.{rng.randint(0, 3)}.{rng.randint(1, 254)}" for _ in range(12)]
paths = ["/", "/index.html", "/api/items", "/api/items/7", "/login", "/static/app.js", "/health"]
statuses = [200] * 12 + [304] * 3 + [404] * 3 + [500, 502, 401, 301]
for i in range(400):
    minute, second = divmod(i * 7, 60)
    print(
        f'{rng.choice(clients)} - - [01/Apr/2026:10:{minute % 60:02d}:{second:02d} +0000] '
        f'"{rng.choice(["GET", "GET", "POST"])} {rng.choice(paths)} HTTP/1.1" '
        f'{rng.choice(statuses)} {rng.randint(120, 9000)} "-" "curl/8.5"'
    )
