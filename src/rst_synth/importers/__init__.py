"""Importers: tasks of other formats made seeds. `harbor.py` takes Harbor tasks (Terminal-Bench 2),
`tb1.py` Terminal-Bench 1 tasks, `offline.py` makes a verifier that installs its test tools at test
time run offline (wheels baked into the image). Only `rst import` uses them; they build on the task
model, which knows nothing of them."""
