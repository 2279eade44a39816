"""Offline scoring and aggregation of recorded runs (reads files only; never imports MuJoCo)."""
