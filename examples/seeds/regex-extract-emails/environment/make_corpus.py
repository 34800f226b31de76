"""Writes a deterministic corpus of support-ticket text with emails, phones and dates in it."""
import random
import sys
from pathlib import Path

rng = random.Random(4242)
out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)

locals_ = ["j.smith", "mary_o", "ops+alerts", "dev-team", "x99", "billing", "a.b.chen", "noreply",
           "k.ito", "support", "lena.fischer", "tom"]
domains = ["example.com", "mail.acme.co.uk", "acme-corp.io", "sub.example.org", "globex.net", "initech.com"]
emails = sorted({f"{rng.choice(locals_)}@{rng.choice(domains)}" for _ in range(30)})
phones = sorted({(rng.randint(2, 9) * 100 + rng.randint(0, 99), rng.randint(2, 9) * 100 + rng.randint(0, 99),
                  rng.randint(0, 9999)) for _ in range(14)})
months = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]
dates = sorted({(rng.randint(2023, 2026), rng.randint(1, 12), rng.randint(1, 28)) for _ in range(16)})


def render_email(address):
    local, domain = address.split("@")
    if rng.random() < 0.3:
        domain = domain.upper() if rng.random() < 0.5 else domain.title()
    if rng.random() < 0.2:
        local = local.capitalize()
    text = f"{local}@{domain}"
    return rng.choice([text, f"<{text}>", f"({text})", f"mailto:{text}", f"{text},", f"{text}."])


def render_phone(phone):
    a, b, c = phone
    return rng.choice([f"({a}) {b}-{c:04d}", f"{a}-{b}-{c:04d}", f"{a}.{b}.{c:04d}",
                       f"+1 {a} {b} {c:04d}", f"+1-{a}-{b}-{c:04d}", f"1-{a}-{b}-{c:04d}"])


def render_date(date):
    y, m, d = date
    return rng.choice([f"{y}-{m:02d}-{d:02d}", f"{m:02d}/{d:02d}/{y}", f"{m}/{d}/{y}",
                       f"{months[m - 1]} {d}, {y}"])


decoys = ["Ping @acme_support on chat", "build v2.10.3 is out", "server 10.20.30.40 was rebooted",
          "order 4155550199 shipped", "ref 2024-0042-17 attached", "root@localhost mailed itself",
          "call window 14:05 to 16:30", "ratio 3/4 of the disk", "see ticket #88213"]
templates = [
    "Customer {e} reported the outage on {d}; call back at {p}.",
    "Escalated by {e} ({p}) after the {d} deploy.",
    "Invoice disputed on {d}, contact {e} or phone {p}",
    "Note: {e} asked us to use {p} instead; follow-up due {d}.",
    "Forwarded to {e} on {d}. Phone on file: {p}",
]
batches = []
for n in range(1, 7):
    lines = []
    for _ in range(14):
        lines.append(rng.choice(templates).format(e=render_email(rng.choice(emails)),
                                                  p=render_phone(rng.choice(phones)),
                                                  d=render_date(rng.choice(dates))))
    batches.append(lines)
for decoy in decoys * 2:  # every decoy appears twice, at seeded places
    lines = rng.choice(batches)
    lines.insert(rng.randint(0, len(lines)), decoy + ".")
for n, lines in enumerate(batches, start=1):
    header = [f"Ticket batch {n}", "=" * 16]
    (out / f"tickets-{n:02d}.txt").write_text("\n".join(header + lines) + "\n")
