"""Make ``calculator`` importable from the repository root without an install step.

Also what every suite shares (the pieces themselves are in tests/harness.py):

* ``built_site``: ONE strict build of the whole site per run, read by the docs
  tests (tests/docs), served to the browser tests (tests/browser) and the
  quality gates (tests/quality). Under pytest-xdist the workers share it too:
  the controller starts it as the run begins, under a file lock, into the run's
  common temporary directory, and the workers wait for that build and read it
  (tests/once.py); without workers, the first test to ask builds it.
* ``served_site``: that build served on 127.0.0.1 the way GitHub Pages serves it
  (tests/harness.py: one server implementation), once per process, twice over:
  ``served_site.sub`` under the project site's subpath
  (``http://127.0.0.1:<port>/bert-parameter-count/``) and ``served_site.root`` at a
  server's root. tests/browser and tests/quality each give it the ``site``
  their tests use.
* ``browser``: one headless Chromium per process (tests/chromium.py).
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import os  # noqa: E402
import subprocess  # noqa: E402
from dataclasses import dataclass  # noqa: E402

import pytest  # noqa: E402

from tests.chromium import SUITE_ARGS, chromium_path, unavailable  # noqa: E402
from tests.harness import SUBPATH, serve  # noqa: E402
from tests.once import once_per_run, run_dir, start_early  # noqa: E402

#: What the shared build is built for: the shape of GitHub Pages' URL for a fork
#: (not the default in mkdocs.yml), so SITE_URL's override is exercised, and a
#: page that wrongly loads from site_url's host fails (tests may reach 127.0.0.1 only).
SITE_URL = f"https://example.github.io/{SUBPATH}/"


#: The order the suites run in: those that need no site build first, so that on
#: several workers (``make test``: pytest-xdist) there is work while the site is
#: built (in the background, by the controller: ``pytest_sessionstart``).
ORDER = ("unit", "properties", "goldens", "crosscheck", "hub", "packaging", "pyodide", "docs", "browser", "quality")


def _suite(item) -> int:
    parts = Path(str(item.path)).relative_to(ROOT).parts
    return ORDER.index(parts[1]) if len(parts) > 2 and parts[0] == "tests" and parts[1] in ORDER else len(ORDER)


def pytest_addoption(parser):
    """``--update-goldens``: rewrite tests/goldens' files from today's output instead of comparing."""
    parser.addoption("--update-goldens", action="store_true", default=False,
                     help="rewrite the golden outputs in tests/goldens/ (then review `git diff tests/goldens`)")


#: Test directories that read the shared site build.
NEEDS_SITE = ("docs", "browser", "quality")


def _needs_site(args: list[str]) -> bool:
    """Whether the paths a run was given (pytest's testpaths, ``tests``, by default) include a suite that reads the site."""
    for arg in args or ["tests"]:
        path = Path(arg.split("::")[0]).resolve()
        if not path.is_relative_to(ROOT):
            continue
        parts = path.relative_to(ROOT).parts
        if parts in ((), ("tests",)) or (len(parts) > 1 and parts[0] == "tests" and parts[1] in NEEDS_SITE):
            return True
    return False


def pytest_sessionstart(session):
    """Under pytest-xdist, the controller starts the shared site build at once (tests/once.py).

    It runs beside the workers' collection and the suites that need no site,
    so the first worker to reach the docs tests finds it built (or nearly)
    instead of building it for ~12 s while the other worker waits on the lock.
    Only the controller does this, only with workers (``-n``), and only when the
    run's paths include a suite that reads the site: a run of one file without
    ``-n`` builds when first asked, as before.
    """
    config = session.config
    if os.environ.get("PYTEST_XDIST_WORKER") or not getattr(config.option, "numprocesses", None):
        return
    if not _needs_site(list(config.args)):
        return
    run = config._tmp_path_factory.getbasetemp()  # the directory the workers' run_dir() is
    start_early(run, "shared-site", lambda top: _build(top / SUBPATH))


def pytest_collection_modifyitems(config, items):
    """Suites in ``ORDER``; within a suite, tests marked ``slow`` first, then the files' own order.

    The slow ones (Lighthouse, ~10 s a run) go first so that they are not what is
    left at the end, queued on one worker while the other has nothing to do
    (``make test`` also lets an idle worker take queued tests: ``--dist worksteal``).
    """
    items.sort(key=lambda item: (_suite(item), item.get_closest_marker("slow") is None))  # stable sort


@dataclass(frozen=True)
class Build:
    """The shared build: ``dir`` is ``<top>/bert-parameter-count``; ``log`` is mkdocs' stderr."""

    dir: Path
    site_url: str
    log: str

    @property
    def top(self) -> Path:
        """The directory above the site (served to put the site under its subpath)."""
        return self.dir.parent


def _build(out: Path) -> dict:
    env = {**os.environ, "SITE_URL": SITE_URL, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--clean", "-d", str(out), "-f", str(ROOT / "mkdocs.yml")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800,
    )
    return {"returncode": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Build:
    """One ``mkdocs build --strict`` of the site for every suite and every worker of this run."""
    result = once_per_run(tmp_path_factory, "shared-site", lambda top: _build(top / SUBPATH))
    out = run_dir(tmp_path_factory) / "shared-site" / SUBPATH
    if result["returncode"] != 0:
        pytest.fail(f"mkdocs build --strict failed ({result['returncode']}):\n"
                    f"{result['stdout'][-2000:]}\n{result['stderr'][-6000:]}", pytrace=False)
    return Build(out, SITE_URL, result["stderr"])


@dataclass(frozen=True)
class Served:
    """The shared build on 127.0.0.1: ``root`` and ``sub`` are the site's URLs (both end in ``/``)."""

    build: Build
    root: str  # http://127.0.0.1:<port>/
    sub: str  # http://127.0.0.1:<port>/bert-parameter-count/


@pytest.fixture(scope="session")
def served_site(built_site) -> Served:
    """The run's one build, served the way GitHub Pages serves it, at a root and under the subpath."""
    assert built_site.dir.name == SUBPATH
    root_server, root_url = serve(built_site.dir, "")
    sub_server, sub_url = serve(built_site.top, SUBPATH)
    yield Served(built_site, root_url, sub_url)
    root_server.stop()
    sub_server.stop()


@pytest.fixture(scope="session")
def playwright_driver():
    """The one Playwright of this process (its sync API allows one per thread: tests/chromium.py)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("the playwright Python package is not installed")
    if not os.path.exists(chromium_path()):
        unavailable(f"Chromium not found at {chromium_path()} (set CHROME_PATH, or apt-get install chromium)")
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="session")
def browser(playwright_driver):
    """One Chromium for the whole run (see tests/chromium.py for why it is shared)."""
    b = playwright_driver.chromium.launch(executable_path=chromium_path(), args=SUITE_ARGS)
    yield b
    b.close()
