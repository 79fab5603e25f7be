// Check the precompiled standard library (sitegen/compile_stdlib.mjs) against npm's, inside
// the site's own Pyodide, and then start a second Pyodide on it the way the worker does.
//   node tests/pyodide/check_stdlib.mjs <npm python_stdlib.zip> <built zip> <calculator-src dir> <optimize>
// Prints one JSON line.
import { loadPyodide } from "pyodide";
import fs from "node:fs";
import path from "node:path";

const [npmZip, builtZip, sourceDir, optimizeArg] = process.argv.slice(2);
const optimize = Number.parseInt(optimizeArg, 10);
if (![0, 1, 2].includes(optimize)) throw new Error(`bad optimize level: ${optimizeArg}`);

// 1. Entry by entry, in a Pyodide started on npm's own zip: each .pyc must be this
//    interpreter's compile of npm's .py it replaces, at the given optimize level and
//    without column positions; every other entry must be one of npm's directory
//    entries; nothing else.
// The reference compiles as the build promises: no column positions (-X no_debug_ranges).
const reference = await loadPyodide({ packages: [], env: { PYTHONNODEBUGRANGES: "1" } });
reference.FS.writeFile("/npm.zip", fs.readFileSync(npmZip));
reference.FS.writeFile("/built.zip", fs.readFileSync(builtZip));
const entries = JSON.parse(reference.runPython(`
import importlib.util, json, marshal, sys, zipfile
[stdlib] = [p for p in sys.path if p.endswith(".zip")]
assert all(column is None for *_, column in compile("x = 1", "-", "exec").co_positions())
npm, built = zipfile.ZipFile("/npm.zip"), zipfile.ZipFile("/built.zip")
npm_names = set(npm.namelist())
out = {"compiled": [], "directories": 0, "problems": [], "extra": []}
for name in built.namelist():
    if name.endswith(".pyc") and name[:-1] in npm_names:
        source = npm.read(name[:-1])
        pyc = built.read(name)
        code = compile(source, stdlib + "/" + name[:-1], "exec", dont_inherit=True, optimize=${optimize})
        checks = {
            "magic": pyc[:4] == importlib.util.MAGIC_NUMBER,
            "flags": int.from_bytes(pyc[4:8], "little") == 0b01,  # hash-based, not checked (no source beside it)
            "hash": pyc[8:16] == importlib.util.source_hash(source),
            "code": marshal.loads(pyc[16:]) == code,
        }
        if not all(checks.values()):
            out["problems"].append([name, [k for k, ok in checks.items() if not ok]])
        out["compiled"].append(name[:-1])
    elif name.endswith("/") and name in npm_names and not built.read(name):
        out["directories"] += 1
    else:
        out["extra"].append(name)
out["npm_modules"] = sum(1 for n in npm_names if n.endswith(".py"))
json.dumps(out)
`));

// 2. Start Pyodide on the built zip (as docs/assets/js/worker.js passes it as stdLibURL),
//    import the calculator and compute: which standard library modules came from where.
const pyodide = await loadPyodide({ packages: [], stdLibURL: path.resolve(builtZip) });
pyodide.FS.mkdirTree("/served");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: path.resolve(sourceDir) }, "/served");
const run = JSON.parse(pyodide.runPython(`
import json, sys
sys.dont_write_bytecode = True
[stdlib] = [p for p in sys.path if p.endswith(".zip")]
sys.path.insert(0, "/served")
import calculator.api as api
result = json.loads(api.compute_json(json.dumps({"params": {"model_type": "bert", "num_hidden_layers": "6"}}), "en"))
import zipimport
specs = [getattr(m, "__spec__", None) for m in list(sys.modules.values())]
from_zip = sorted(s.origin[len(stdlib) + 1:] for s in specs if s and isinstance(s.loader, zipimport.zipimporter))
json.dumps({"total": result["total"], "from_zip": from_zip})
`));
console.log(JSON.stringify({ ...entries, ...run }));
