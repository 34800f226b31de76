"""Operators on tables (CSV): totals per group, statistics, cross-tabulations, time buckets, reusable table
tools, feeds reconciled, batches folded, a planted defect."""
