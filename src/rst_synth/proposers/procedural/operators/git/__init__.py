"""Operators on git repositories: branches, tags and author counts, reverts and backports, bisection, churn,
commit hooks, changelogs."""
