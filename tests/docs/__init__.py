"""Tests of the built documentation site (one build per session, see conftest.py)."""
