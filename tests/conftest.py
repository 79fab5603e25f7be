"""Make ``calculator`` importable from the repository root without an install step."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import os  # noqa: E402

import pytest  # noqa: E402

from tests.chromium import CHROMIUM_ARGS, chromium_path, unavailable  # noqa: E402


@pytest.fixture(scope="session")
def browser():
    """One Chromium for the whole run (see tests/chromium.py for why it is shared)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("the playwright Python package is not installed")
    path = chromium_path()
    if not os.path.exists(path):
        unavailable(f"Chromium not found at {path} (set CHROME_PATH, or apt-get install chromium)")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield b
        b.close()
