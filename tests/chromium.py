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

#: What the test suites launch (never the benchmarks, which measure what a reader's
#: browser does): V8 compiles Pyodide's WebAssembly with its baseline compiler,
#: Liftoff, and stops there. A reader's browser also recompiles the hot functions
#: with TurboFan on background threads: on a cold calculator load here that is
#: ~1.8 s of CPU within the first 2 s, which on two cores shared by two test workers
#: slows every other test. Same program, same results; only speed differs, and no
#: verdict depends on speed. Measured (cold load until the answer, median of 4):
#: 4.2 s of CPU and 1.9 s without the flag, 3.0 s and 1.5 s with it.
SUITE_ARGS = [*CHROMIUM_ARGS, "--js-flags=--liftoff-only"]

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
