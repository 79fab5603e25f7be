"""Recorded outputs of real frameworks, and model code used as the independent side of cross-checks."""
