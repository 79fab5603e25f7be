"""What the build puts in the site for the calculator, checked on the served files.

* the calculator's sources are the repository's, byte for byte, and so is Pyodide;
* the first answer is in the HTML itself (no script needed to see it);
* explainer pages load no Pyodide, no worker and no calculator script;
* under a subpath (GitHub Pages' /bert-parameter-count/) the calculator works
  and asks for nothing outside its own path.
"""
from __future__ import annotations

import hashlib
import json
import re
import urllib.parse
import urllib.request

import pytest

from .support import ROOT, expected_numbers, page_numbers, run_cli, wait_ready, wait_total

pytestmark = pytest.mark.browser

PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as response:  # noqa: S310 - 127.0.0.1 only
        return response.read()


#: The command line's own modules: the page does not run them, so the site does not ship them.
CLI = {"calculator/__main__.py", "calculator/cli.py", "calculator/hub_fetch.py"}
#: The Hub's reader, its view and the page's answer: listed apart in the manifest (``on_demand``), downloaded
#: only when a reader asks for a model id (issue 33, item 4).
HUB = {"calculator/hub.py", "calculator/views/hub.py", "calculator/page/hub.py"}


def repo_sources() -> list[str]:
    """Every ``.py`` file of calculator/ but the CLI's own and the Hub's."""
    found = sorted(
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "calculator").rglob("*.py")
        if "__pycache__" not in p.parts
    )
    assert CLI | HUB <= set(found)
    return [p for p in found if p not in CLI | HUB]


def test_served_calculator_sources_are_the_repository_files(site):
    manifest = json.loads(fetch(site.root + "assets/calculator-src/manifest.json"))
    listed = [entry["path"] for entry in manifest["files"]]
    assert sorted(listed) == repo_sources()
    for entry in manifest["files"]:
        served = fetch(site.root + "assets/calculator-src/" + entry["path"])
        local = (ROOT / entry["path"]).read_bytes()
        assert served == local, entry["path"]
        assert hashlib.sha256(served).hexdigest() == entry["sha256"]
        assert entry["size"] == len(local)
    # The checked-hash bytecode, one zip served beside them (tests/pyodide/test_bytecode.py
    # checks what is in it and what it can do).
    # (all but the modules the default answer does not import: the manifest's "later", which the worker fetches
    # after its first answer and compiles when a reader asks for them)
    compiled = {e["path"].replace("__pycache__/", "").rsplit(".cpython-", 1)[0] + ".py"
                for e in manifest["bytecode"]["files"]}
    assert compiled <= set(listed) and set(listed) - compiled == set(manifest["later"])
    assert {"calculator/families/roberta.py", "calculator/page/costs.py"} <= set(manifest["later"])
    assert not {"calculator/families/bert.py", "calculator/api.py"} & set(manifest["later"])
    # The Hub's modules: served as the repository has them, listed apart, and never in the bytecode.
    assert sorted(e["path"] for e in manifest["on_demand"]) == sorted(HUB)
    for entry in manifest["on_demand"]:
        served = fetch(site.root + "assets/calculator-src/" + entry["path"])
        assert served == (ROOT / entry["path"]).read_bytes() and hashlib.sha256(served).hexdigest() == entry["sha256"]
    assert not compiled & HUB
    archive = fetch(site.root + "assets/calculator-src/" + manifest["bytecode"]["path"])
    assert hashlib.sha256(archive).hexdigest() == manifest["bytecode"]["sha256"]


def test_served_pyodide_is_the_npm_package(site):
    package = json.loads((ROOT / "node_modules" / "pyodide" / "package.json").read_text())
    manifest = json.loads(fetch(site.root + "assets/calculator-src/manifest.json"))
    assert manifest["pyodide"] == package["version"]
    for name in PYODIDE_FILES:
        served = fetch(site.root + "assets/pyodide/" + name)
        assert served == (ROOT / "node_modules" / "pyodide" / name).read_bytes(), name
    # The precompiled standard library the worker loads instead of python_stdlib.zip
    # (tests/pyodide/test_stdlib.py checks what is in it).
    stdlib = manifest["stdlib"]
    served = fetch(site.root + stdlib["path"])
    assert hashlib.sha256(served).hexdigest() == stdlib["sha256"] and len(served) == stdlib["size"]
    npm_zip = (ROOT / "node_modules" / "pyodide" / "python_stdlib.zip").read_bytes()
    assert stdlib["source_sha256"] == hashlib.sha256(npm_zip).hexdigest()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_first_answer_is_in_the_html(site, lang):
    """Before any script runs, the page already holds the exact default result."""
    html = fetch(site.url("calculator/", lang)).decode()
    expected = json.loads(run_cli({"model_type": "bert"}, "BertModel", lang=lang))
    assert f'data-total="{expected["total"]}"' in html
    assert f'{expected["total"]:,}' in html
    assert html.count("data-total=") == 1
    head = html[: html.index("</head>")]
    # Versioned by build (?v=…), so a returning reader never runs one build's script on another's page.
    starter = re.search(r'<script src="(\.\./)+assets/js/calculator-start\.js\?v=[0-9a-f]+"></script>', head)
    module = re.search(r'<script type="module" src="(\.\./)+assets/js/calculator\.js\?v=[0-9a-f]+"></script>', head)
    # The starter is a classic script in <head>: it runs before Material's bundle (end of <body>).
    assert starter and module and starter.start() < module.start()
    assert html.index("</head>") < html.index("assets/javascripts/bundle.")
    assert 'lang="zh' in html if lang == "zh" else 'lang="en"' in html


def test_explainer_pages_reference_no_calculator_runtime(site):
    pages = [p for p in site.dir.rglob("*.html") if "calculator" not in p.relative_to(site.dir).parts]
    assert len(pages) > 10
    for p in pages:
        html = p.read_text(encoding="utf-8")
        for needle in ("pyodide", "assets/js/calculator", "worker.js", "calculator.css"):
            assert needle not in html.lower(), f"{p.relative_to(site.dir)} mentions {needle}"


def requests_of(page) -> list[str]:
    """Every request this tab and its workers make (not a service worker's own, in the background)."""
    seen: list[str] = []
    page.on("request", lambda request: seen.append(request.url))
    return seen


def test_explainer_page_loads_no_pyodide(page, site):
    loaded = requests_of(page)
    page.goto(site.url(""))
    page.wait_for_load_state("networkidle")
    assert loaded, "no request seen"
    assert not [u for u in loaded if "pyodide" in u or "calculator" in u or "worker.js" in u]


def test_calculator_page_loads_pyodide_in_a_worker_from_this_site(browser, site, traffic):
    """A first visit (a context of its own: no service worker has kept anything yet)."""
    from .conftest import new_context, watch

    ctx = new_context(browser, traffic)
    try:
        page = ctx.new_page()
        errors = watch(page)
        loaded = requests_of(page)
        page.goto(site.url("calculator/"))
        wait_ready(page)
        workers = [w.url for w in page.workers]
    finally:
        ctx.close()
    assert errors == []
    for name in ("assets/js/worker.js", "assets/pyodide/pyodide.asm.wasm", "assets/pyodide-stdlib/python_stdlib.zip",
                 "assets/calculator-src/manifest.json", "assets/calculator-src/calculator/api.py"):
        assert any(u.startswith(site.root + name) for u in loaded), name
    # The standard library comes precompiled (sitegen/compile_stdlib.mjs), not as npm's sources,
    # and the lock file comes inline, without its packages (the calculator loads none).
    assert not any(u.startswith(site.root + "assets/pyodide/python_stdlib.zip") for u in loaded)
    assert not any(u.startswith(site.root + "assets/pyodide/pyodide-lock.json") for u in loaded)
    # worker.js starts with a static `import`, so it can only run as a module worker.
    # (Its URL carries its version and the page's build, worker.js?v=…&build=…: one build per answer.)
    assert any(w.split("?")[0] == site.root + "assets/js/worker.js" for w in workers), workers
    assert (ROOT / "docs/assets/js/worker.js").read_text().lstrip().count("\nimport ") >= 1


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_calculator_works_under_a_subpath(page, site, lang, tmp_path):
    config = {"model_type": "roberta", "num_hidden_layers": 6}
    expected = json.loads(run_cli(config, "RobertaForMaskedLM", tmp_path=tmp_path))
    loaded = requests_of(page)
    page.goto(site.url("calculator/", lang, "model_type=roberta&architecture=RobertaForMaskedLM&num_hidden_layers=6",
                       sub=True))
    wait_total(page, expected["total"])
    got, want = page_numbers(page), expected_numbers(expected)
    for key in ("groups", "layers", "tensors", "memory"):
        assert got[key] == want[key], key
    prefix = site.sub
    assert loaded
    outside = [u for u in loaded if not u.startswith(prefix)]
    assert outside == [], "requests outside the subpath"
    # The language switcher stays under the subpath too.
    other = page.locator('a[hreflang="%s"]' % ("zh" if lang == "en" else "en")).first.get_attribute("href")
    target = urllib.parse.urljoin(page.url, other)
    assert target.startswith(prefix), target

