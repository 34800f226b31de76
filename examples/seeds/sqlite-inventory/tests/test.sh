#!/bin/bash
# Verifier entry point: run the pytest checks and write the reward Harbor reads.
mkdir -p /logs/verifier
cd /tests
if PYTHONDONTWRITEBYTECODE=1 python3 -m pytest -q -rA -p no:cacheprovider /tests; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
