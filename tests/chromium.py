"""The one headless Chromium every browser-driven test suite shares.

Playwright's sync API allows one running instance per thread, so the calculator
tests (tests/browser) and the quality gates (tests/quality) must share a
single session fixture (``browser`` in tests/conftest.py) instead of each
starting their own.
"""
from __future__ import annotations

import os

import pytest

#: Debian's chromium as root on a closed network: no sandbox, no background traffic.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

#: Every host but 127.0.0.1 fails to resolve: a guard for a browser whose requests are
#: not routed (a route turns the HTTP cache off, and with it compiled WebAssembly's cache).
LOCAL_ONLY = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


def unavailable(reason: str) -> None:
    """Skip locally, fail in CI: a missing browser must never turn CI green."""
    if in_ci():
        pytest.fail(f"{reason} (CI=true: browser tests must run, not skip)", pytrace=False)
    pytest.skip(reason)


def chromium_path() -> str:
    """CHROME_PATH (GitHub runners: Google Chrome), else Debian's chromium."""
    return os.environ.get("CHROME_PATH", "/usr/bin/chromium")
