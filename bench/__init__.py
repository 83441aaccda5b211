"""The lanelog benchmark: `python -m bench` (full) or `python -m bench --quick` (CI smoke test).

It generates its data deterministically, runs each case in a fresh subprocess
after a warm-up, and prints lanelog's figures beside its baselines and the
targets of the issues, writing the same table to ``bench/results.json``.
"""
