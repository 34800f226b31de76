"""Evaluation: agents on the corpus. `runner.py` is `rst eval`'s resumable runner (K attempts per
task, N at a time, each run by the executor), `solver.py` the agent that attempts each accepted child
during synthesis (the candidate pipeline's solvable check), `passk.py` the unbiased pass@k estimator
and its average per round. Modules are imported by path: pass@k needs nothing but the store."""
