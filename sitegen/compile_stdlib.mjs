// The standard library the calculator's worker starts Pyodide on: only the modules
// that Pyodide's start and the calculator import, precompiled by the site's own Pyodide.
//
//   node sitegen/compile_stdlib.mjs <npm python_stdlib.zip> <calculator-src dir> <out.zip>
//
// Called by sitegen/calculator_assets.py at build time. Why: npm's zip holds the
// whole standard library (614 entries, 2.5 MB) as .py sources only, so every page
// that loads Pyodide compiles the ~125 modules Python imports on its way up (~1.2 s
// of a ~2 s start in Chromium here) and downloads hundreds it never imports.
//
// Which modules, derived from the code, not from a list kept by hand:
//  1. those Pyodide's own start imports (this same runtime, started the same way);
//  2. every module of the calculator package, imported (a family or module added
//     to calculator/ later is found by walking the directory);
//  3. every standard library module named by an `import` anywhere in the package's
//     sources, functions included (read with `ast`: lazily imported modules such
//     as `fractions` for calculator/active.py and `difflib` for preset
//     suggestions), each imported, with everything it imports in turn;
//  4. what the page's requests reach when run: every family, both languages, the
//     form, and wrong inputs (errors and their suggestions). Not every preset: a
//     preset is a family's values and takes no other path (with them, the same 128
//     modules, in 7 s more of every site build).
// Every module that came from npm's zip on the way goes into <out.zip> as a
// sourceless .pyc of npm's source, compiled here at optimize level 2 (-OO: no
// docstrings, no asserts; the standard library supports it) and without column
// positions (-X no_debug_ranges): 0.89 MB where level 0 with positions is 1.40 MB.
// The header records the hash of the .py it replaces (PEP 552, unchecked). Nothing else is copied: an import of anything outside raises
// ModuleNotFoundError. tests/pyodide/ runs the whole unit suite on this zip with
// any such import failing loudly, and checks each .pyc against npm's source.
// Prints one JSON line: {"compiled": [...], "optimize": 2, "debug_ranges": false, "dropped": N}.
import { loadPyodide } from "pyodide";
import fs from "node:fs";
import path from "node:path";

const [zipIn, sourceDir, zipOut] = process.argv.slice(2);
if (!zipOut) {
  console.error("usage: node sitegen/compile_stdlib.mjs <python_stdlib.zip> <calculator-src dir> <out.zip>");
  process.exit(2);
}
// PYTHONNODEBUGRANGES: code objects without column positions (a quarter smaller; a
// traceback through the standard library loses its ^^^ markers, nothing else).
const pyodide = await loadPyodide({ packages: [], env: { PYTHONNODEBUGRANGES: "1" } });
pyodide.FS.mkdirTree("/served");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: path.resolve(sourceDir) }, "/served");
pyodide.FS.writeFile("/stdlib-in.zip", fs.readFileSync(zipIn));
const compiled = pyodide.runPython(`
import ast, importlib, importlib.util, json, os, sys, zipfile, zipimport
from importlib._bootstrap_external import _code_to_hash_pyc

OPTIMIZE = 2
assert all(column is None for *_, column in compile("x = 1", "-", "exec").co_positions()), "debug ranges are on"
# The zip Python imports its standard library from (/lib/python314.zip), as a sys.path entry.
[stdlib] = [p for p in sys.path if p.endswith(".zip")]


def from_zip():
    """Entries of the zip that imported modules came from (frozen modules such as os
    and codecs also have a __file__ in the zip, but never read it)."""
    found = set()
    for module in list(sys.modules.values()):
        spec = getattr(module, "__spec__", None)
        if spec is not None and isinstance(spec.loader, zipimport.zipimporter) and spec.origin.endswith(".py"):
            found.add(spec.origin[len(stdlib) + 1:])
    return found


def try_import(name):
    try:
        importlib.import_module(name)
    except ImportError:
        pass  # an optional import the package guards itself, or a name that is not a module


used = from_zip()  # 1. Pyodide's start
sys.dont_write_bytecode = True  # leave the served directory as the build wrote it
sys.path.insert(0, "/served")
root = "/served/calculator"
names, imported = [], set()
for folder, dirs, files in os.walk(root):
    dirs[:] = sorted(d for d in dirs if d.isidentifier())
    for file in sorted(files):
        if not file.endswith(".py"):
            continue
        rel = os.path.relpath(os.path.join(folder, file), "/served")[:-3].split(os.sep)
        if rel[-1] == "__init__":
            rel = rel[:-1]
        with open(os.path.join(folder, file), "rb") as fh:
            tree = ast.parse(fh.read())
        for node in ast.walk(tree):  # 3. every import statement, at any depth
            if isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module)
                imported.update(node.module + "." + alias.name for alias in node.names if alias.name != "*")
        if rel[-1] != "__main__":  # running it would run the CLI
            names.append(".".join(rel))
for name in names:  # 2. the package itself
    importlib.import_module(name)
for name in sorted(imported):
    if name.split(".")[0] != "calculator":
        try_import(name)

# 4. the page's requests (docs/assets/js/worker.js calls calculator.api.compute_json).
api = importlib.import_module("calculator.api")
families = getattr(importlib.import_module("calculator.families"), "FAMILIES", {})
presets = getattr(importlib.import_module("calculator.presets"), "PRESETS", {})
requests = [{"params": {"model_type": m}} for m in families] + [{"params": {"preset": p}} for p in list(presets)[:1]]  # the preset path, once
requests += [
    {"params": {"model_type": "bert", "hidden_size": "x"}},
    {"params": {"model_type": "bert", "hidden_size": "100", "num_attention_heads": "12"}},
    {"params": {"preset": "bert-base-uncasedd"}},
    {"params": {"model_type": "no-such-family"}},
    {"config": "{not json"},
    {"config": json.dumps({"model_type": "bert", "hidden_size": -1})},
]
for lang in ("en", "zh"):
    calls = [lambda: api.render_widget(lang)] if hasattr(api, "render_widget") else []
    calls += [lambda r=request: api.compute_json(json.dumps(r), lang) for request in requests]
    for call in calls:
        try:
            call()
        except Exception:
            pass  # the unit tests judge the answers; here only what they import counts
used |= from_zip()

out, kept = [], 0
with zipfile.ZipFile("/stdlib-in.zip") as zin, zipfile.ZipFile("/stdlib-out.zip", "w") as zout:
    infos = zin.infolist()
    packages = {os.path.dirname(name) + "/" for name in used if name.endswith("/__init__.py")}
    for info in infos:
        if info.filename in used:
            data = zin.read(info.filename)
            code = compile(data, stdlib + "/" + info.filename, "exec", dont_inherit=True, optimize=OPTIMIZE)
            pyc = zipfile.ZipInfo(info.filename + "c", info.date_time)
            pyc.compress_type = zipfile.ZIP_DEFLATED
            zout.writestr(pyc, _code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False),
                          compresslevel=9)
            out.append(info.filename)
        elif info.filename in packages:  # the directory entries of the packages shipped
            zout.writestr(info, b"")
            kept += 1
json.dumps({"compiled": sorted(out), "optimize": OPTIMIZE, "debug_ranges": False,
            "dropped": len(infos) - len(out) - kept})
`);
fs.writeFileSync(zipOut, pyodide.FS.readFile("/stdlib-out.zip"));
console.log(compiled);
