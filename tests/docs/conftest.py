"""One strict build of the whole site per test session, shared by every docs test."""
from __future__ import annotations

import os
import subprocess
import sys
from urllib.parse import urlsplit

import pytest

from .builtsite import ROOT, Site, mkdocs_config

#: A project-site URL, so the build is checked under a subpath as GitHub Pages serves it.
SITE_URL = "https://bert-params.github.io/bert-parameter-count/"


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Site:
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, SITE_URL=SITE_URL, NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--clean", "-d", str(out), "-f", str(ROOT / "mkdocs.yml")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode != 0:
        pytest.fail(f"mkdocs build --strict failed ({proc.returncode}):\n{proc.stderr[-6000:]}", pytrace=False)
    return Site(out, urlsplit(SITE_URL).path, proc.stderr)


@pytest.fixture(scope="session")
def config() -> dict:
    return mkdocs_config()
