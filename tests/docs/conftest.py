"""The docs tests read the run's one strict build of the whole site (``built_site``, tests/conftest.py)."""
from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from .builtsite import Site, mkdocs_config


@pytest.fixture(scope="session")
def site(built_site) -> Site:
    return Site(built_site.dir, urlsplit(built_site.site_url).path, built_site.log)


@pytest.fixture(scope="session")
def config() -> dict:
    return mkdocs_config()
