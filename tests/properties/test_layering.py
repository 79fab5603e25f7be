"""The package's walls: leaf modules stay leaves, families know nothing of the views or the page,
and no module outside ``calculator/families/`` branches on a family's ``model_type``.

Read from the source (AST), so an import hidden inside a function counts too.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

from calculator.families import FAMILIES

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "calculator"


def _imports(path: Path) -> set[str]:
    """calculator modules imported anywhere in ``path`` (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parts = path.relative_to(ROOT).with_suffix("").parts
    package = parts[:-1]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join(base + tuple((node.module or "").split("."))).rstrip(".")
                if node.module is None:
                    out.update(f"{target}.{a.name}" for a in node.names)
                else:
                    out.add(target)
            elif node.module and node.module.startswith("calculator"):
                out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("calculator"))
    return out


def test_leaf_modules_import_nothing_of_the_package():
    for name in ("model", "i18n", "hf_model_types", "record"):
        found = _imports(PKG / f"{name}.py")
        assert not found, (name, found)
    # The words, how a language lists names, and the table of transformers' model types (data) its hint names.
    assert _imports(PKG / "errors.py") <= {"calculator.i18n", "calculator.hf_model_types"}
    assert _imports(PKG / "config.py") <= {"calculator.errors"}
    # The HTML builder (charts and the page both use it) and the options' declarations: leaves too.
    assert not _imports(PKG / "html.py")
    assert _imports(PKG / "options.py") <= {"calculator.i18n", "calculator.record"}  # record: a leaf (frozen records)


def test_charts_never_import_the_page():
    assert not any(m.startswith(("calculator.page", "calculator.api")) for m in _imports(PKG / "charts.py"))


def test_families_never_import_the_engine_views_or_page():
    for path in (PKG / "families").glob("*.py"):
        for module in _imports(path):
            assert not module.startswith(("calculator.build", "calculator.views", "calculator.api",
                                          "calculator.charts", "calculator.cli", "calculator.presets")), (path.name, module)


def test_only_the_cli_entry_point_imports_the_cli():
    """The site does not ship calculator/cli.py (sitegen/calculator_assets.py CLI_ONLY): a module the
    page runs that imported it would fail in the browser."""
    importers = sorted(path.relative_to(PKG).as_posix() for path in PKG.rglob("*.py")
                       if any(m == "calculator.cli" or m.startswith("calculator.cli.") for m in _imports(path)))
    assert importers == ["__main__.py"], importers


def test_views_never_import_the_page():
    for path in (PKG / "views").glob("*.py"):
        assert not any(m.startswith(("calculator.api", "calculator.page", "calculator.cli")) for m in _imports(path)), path


def _lines_outside(allowed: tuple[str, ...]) -> list[tuple[str, int, str]]:
    """(path, line number, line) of every Python line in calculator/ and sitegen/ outside ``allowed`` paths."""
    out = []
    for path in sorted(list(PKG.rglob("*.py")) + list((ROOT / "sitegen").glob("*.py"))):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(allowed):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            out.append((rel, number, line))
    return out


def test_markdown_tables_are_written_by_the_views_only():
    """One home for Markdown: a table's separator row appears nowhere but calculator/views/."""
    hits = [f"{p}:{n}: {line.strip()}" for p, n, line in _lines_outside(("calculator/views/",)) if "|---" in line]
    assert not hits, "\n".join(hits)


def test_only_the_word_tables_and_renderers_ask_for_the_language():
    """Words are data: code outside calculator/i18n.py and calculator/views/ never branches on "zh"."""
    pattern = re.compile(r"""[=!]=\s*["']zh["']|["']zh["']\s*[=!]=|["']zh["']\s+if\b""")
    hits = [f"{p}:{n}: {line.strip()}" for p, n, line in _lines_outside(("calculator/views/", "calculator/i18n.py"))
            if pattern.search(line)]
    assert not hits, "\n".join(hits)


def test_the_family_travels_with_the_inventory():
    """After build(), the family and class are ``inv.family`` / ``inv.arch``: nobody looks them up by name again."""
    pattern = re.compile(r"FAMILIES(\.get\(|\[)\s*inv\.model_type")
    hits = [f"{p}:{n}: {line.strip()}" for p, n, line in _lines_outside(()) if pattern.search(line)]
    assert not hits, "\n".join(hits)


def test_no_model_type_string_outside_the_families():
    """The CLI, views, page, site hooks and page scripts read declarations; they never compare model_type strings."""
    names = "|".join(re.escape(n) for n in sorted(FAMILIES, key=len, reverse=True))
    # A family's name in quotes beside model_type, or compared (==, !=, in): a branch on the family.
    pattern = re.compile(
        r"""model_type\W.*["'](%s)["']|["'](%s)["'].*\Wmodel_type|(==|!=|\bin)\s*[(\[{]?\s*["'](%s)["']"""
        % (names, names, names)
    )
    places = [p for p in PKG.rglob("*.py") if "families" not in p.parts]
    places += list((ROOT / "sitegen").glob("*.py")) + list((ROOT / "docs" / "assets" / "js").glob("*.js"))
    hits = []
    for path in places:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    # The build's documented default for a config without model_type is the one allowed name.
    allowed = {"calculator/build.py"}
    hits = [h for h in hits if h.split(":")[0] not in allowed]
    assert not hits, "\n".join(hits)


def test_cost_engine_layers_below_the_families_never_import_them():
    """calculator/costs/ is layered (its __init__ says how): the families import tensor, declare, ops and modules, so
    those import nothing of the families (nor the step above them), and no family imports the step, which
    runs the families' programs: an import circle would load half-built modules in whichever order Python
    meets them."""
    costs = PKG / "costs"
    below = {"tensor": set(), "declare": {"tensor"}, "ops": {"tensor"}, "modules": {"tensor", "declare", "ops"}}
    for name, allowed in below.items():
        found = {m for m in _imports(costs / f"{name}.py") if m.startswith("calculator.costs")}
        assert found <= {f"calculator.costs.{a}" for a in allowed}, (name, found)
        assert not any(m.startswith("calculator.families") for m in _imports(costs / f"{name}.py")), name
    for path in (PKG / "families").glob("*.py"):
        found = {m for m in _imports(path) if m.startswith("calculator.costs.step")}
        assert not found, (path.name, found)
    assert not (PKG / "costs.py").exists()  # one engine: the package, not a module beside it


def test_the_default_answer_imports_no_cost_engine():
    """Issue 31: the page's default answer (and a shared link's: counts only) runs in a fresh interpreter without
    the cost simulator, the peak, the step, their views or peft; they wait until a step is costed or a plan is
    asked for. The site ships bytecode only for what this answer imports (sitegen/calculator_assets.py), so a
    module that slips back onto this path costs every reader its bytes and its import time."""
    import json
    import subprocess
    import sys

    code = ("import json, sys\nfrom calculator import api\n"
            "api.compute_json(json.dumps({'params': api.DEFAULT_PARAMS}))\n"
            "print(json.dumps(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    imported = set(json.loads(out.stdout.strip().splitlines()[-1]))
    later = {f"calculator.costs.{m}" for m in ("ops", "modules", "peak", "step", "inference", "lifetime", "fit")}
    later |= {"calculator.views.costs", "calculator.views.inference", "calculator.peft"}
    assert not imported & later, sorted(imported & later)
    assert "calculator.families.bert" in imported  # the answer ran
