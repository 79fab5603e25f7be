// Check the precompiled standard library (sitegen/compile_stdlib.mjs) against npm's, inside
// the site's own Pyodide, and then start a second Pyodide on it the way the worker does.
//   node tests/pyodide/check_stdlib.mjs <npm python_stdlib.zip> <built zip> <calculator-src dir>
// Prints one JSON line.
import { loadPyodide } from "pyodide";
import fs from "node:fs";
import path from "node:path";

const [npmZip, builtZip, sourceDir] = process.argv.slice(2);

// 1. Entry by entry, in a Pyodide started on npm's own zip: each .pyc must be this
//    interpreter's compile of npm's .py it replaces; everything else must be npm's bytes.
const reference = await loadPyodide({ packages: [] });
reference.FS.writeFile("/npm.zip", fs.readFileSync(npmZip));
reference.FS.writeFile("/built.zip", fs.readFileSync(builtZip));
const entries = JSON.parse(reference.runPython(`
import importlib.util, json, marshal, sys, zipfile
[stdlib] = [p for p in sys.path if p.endswith(".zip")]
npm, built = zipfile.ZipFile("/npm.zip"), zipfile.ZipFile("/built.zip")
names = set(built.namelist())
out = {"compiled": [], "copied": 0, "problems": [], "extra": []}
expected = set()
for name in npm.namelist():
    source = npm.read(name)
    if name.endswith(".py") and name + "c" in names and name not in names:
        expected.add(name + "c")
        pyc = built.read(name + "c")
        code = compile(source, stdlib + "/" + name, "exec", dont_inherit=True, optimize=0)
        checks = {
            "magic": pyc[:4] == importlib.util.MAGIC_NUMBER,
            "flags": int.from_bytes(pyc[4:8], "little") == 0b01,  # hash-based, not checked (no source beside it)
            "hash": pyc[8:16] == importlib.util.source_hash(source),
            "code": marshal.loads(pyc[16:]) == code,
        }
        if not all(checks.values()):
            out["problems"].append([name, [k for k, ok in checks.items() if not ok]])
        out["compiled"].append(name)
    else:
        expected.add(name)
        if name not in names or built.read(name) != source:
            out["problems"].append([name, ["not npm's bytes"]])
        else:
            out["copied"] += 1
out["extra"] = sorted(names - expected)
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
