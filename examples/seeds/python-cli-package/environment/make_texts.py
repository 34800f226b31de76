"""Writes deterministic text files (field notes) into the directory argv[1]."""
import random
import sys
from pathlib import Path

rng = random.Random(20260505)
vocab = ("the river ran cold and clear past the mill where otters played at dusk "
         "we counted herons on the bank and logged the water level each morning "
         "it's the otter's den that floods first when rain comes down the valley").split()
weights = [1 + (i * 37) % 11 for i in range(len(vocab))]
out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
for n in range(1, 5):
    lines = []
    for _ in range(rng.randint(40, 70)):
        sentence = rng.choices(vocab, weights=weights, k=rng.randint(4, 14))
        sentence[0] = sentence[0].capitalize()
        lines.append(" ".join(sentence) + rng.choice([".", ".", "!", "?", ", 'Quiet'."]))
    (out / f"notes-{n}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
