// Precompile the part of Pyodide's standard library that the calculator's worker
// imports before its first answer, with the site's own Pyodide.
//
//   node sitegen/compile_stdlib.mjs <npm python_stdlib.zip> <calculator-src dir> <out.zip>
//
// Called by sitegen/calculator_assets.py at build time. Why: the npm package ships
// its standard library as .py sources only, so every page that loads Pyodide
// compiles ~125 modules (asyncio, inspect, typing, json, ...) from source while
// Python starts: ~1.2 s of the ~2 s that Pyodide takes to start in Chromium here.
//
// How: boot this Pyodide, import calculator.api from <calculator-src dir> and
// compute one result, exactly as docs/assets/js/worker.js does; every module that
// came from python_stdlib.zip on the way (frozen modules do not) is replaced in
// the output zip by a sourceless .pyc of the same source, compiled by this
// interpreter, so the magic number matches (pyodide-build's `create-zipfile
// --pycompile` does the same to a whole zip). The header of each .pyc records
// the hash of the .py it replaces (PEP 552, unchecked). Every other entry is
// copied unchanged, so modules imported later still load, from source.
// Prints one JSON line: the entries compiled.
import { loadPyodide } from "pyodide";
import fs from "node:fs";
import path from "node:path";

const [zipIn, sourceDir, zipOut] = process.argv.slice(2);
if (!zipOut) {
  console.error("usage: node sitegen/compile_stdlib.mjs <python_stdlib.zip> <calculator-src dir> <out.zip>");
  process.exit(2);
}
const pyodide = await loadPyodide({ packages: [] });
pyodide.FS.mkdirTree("/served");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: path.resolve(sourceDir) }, "/served");
pyodide.FS.writeFile("/stdlib-in.zip", fs.readFileSync(zipIn));
const compiled = pyodide.runPython(`
import importlib.util, json, sys, zipfile, zipimport
from importlib._bootstrap_external import _code_to_hash_pyc

# The zip Python imports its standard library from (/lib/python314.zip), as a sys.path entry.
[stdlib] = [p for p in sys.path if p.endswith(".zip")]
sys.dont_write_bytecode = True  # leave the served directory as the build wrote it
sys.path.insert(0, "/served")
api = importlib.import_module("calculator.api")
json.loads(api.compute_json(json.dumps({"params": {"model_type": "bert"}}), "en"))
used = set()
for module in list(sys.modules.values()):
    # Loaded from the zip, not frozen into the interpreter (frozen modules such as os
    # and codecs also have a __file__ in the zip, but never read it).
    spec = getattr(module, "__spec__", None)
    if spec is not None and isinstance(spec.loader, zipimport.zipimporter) and spec.origin.endswith(".py"):
        used.add(spec.origin[len(stdlib) + 1:])

out = []
with zipfile.ZipFile("/stdlib-in.zip") as zin, zipfile.ZipFile("/stdlib-out.zip", "w") as zout:
    for info in zin.infolist():
        data = zin.read(info.filename)
        if info.filename in used:
            code = compile(data, stdlib + "/" + info.filename, "exec", dont_inherit=True, optimize=0)
            pyc = zipfile.ZipInfo(info.filename + "c", info.date_time)
            pyc.compress_type = zipfile.ZIP_DEFLATED
            zout.writestr(pyc, _code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False))
            out.append(info.filename)
        else:
            zout.writestr(info, data)
json.dumps(sorted(out))
`);
fs.writeFileSync(zipOut, pyodide.FS.readFile("/stdlib-out.zip"));
console.log(compiled);
