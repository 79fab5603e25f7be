// Load a served calculator-src directory (sources + the zip of checked-hash pycs) into
// Pyodide's in-memory file system the way docs/assets/js/worker.js does (the zip unpacked
// by zipimport beside the sources), import calculator.api, and print JSON: each pyc's
// header checks and one computed total.
//   node tests/pyodide/check_bytecode.mjs <dir> [with-bytecode|sources-only]
import { loadPyodide } from "pyodide";
import fs from "node:fs";
import path from "node:path";

const dir = process.argv[2];
const withBytecode = process.argv[3] !== "sources-only";
const manifest = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"));
const pyodide = await loadPyodide({ packages: [] });
for (const file of manifest.files) {
  const full = "/calculator-src/" + file.path;
  pyodide.FS.mkdirTree(path.posix.dirname(full));
  pyodide.FS.writeFile(full, fs.readFileSync(path.join(dir, file.path)));
}
const members = withBytecode ? manifest.bytecode.files : [];
if (withBytecode) {
  pyodide.FS.writeFile("/tmp/bytecode.zip", fs.readFileSync(path.join(dir, manifest.bytecode.path)));
  pyodide.runPython(`
import os, zipimport
zipped = zipimport.zipimporter("/tmp/bytecode.zip")
for name in ${JSON.stringify(members.map((m) => m.path))}:
    os.makedirs(os.path.dirname("/calculator-src/" + name), exist_ok=True)
    with open("/calculator-src/" + name, "wb") as fh:
        fh.write(zipped.get_data(name))
`);
}
console.log(pyodide.runPython(`
import importlib.util, json, sys
sys.dont_write_bytecode = True  # what is imported must be what was shipped
root = "/calculator-src/"
checks = {}
for entry in json.loads(${JSON.stringify(JSON.stringify(members))}):
    pyc = root + entry["path"]
    source = importlib.util.source_from_cache(pyc)
    with open(pyc, "rb") as fh:
        header = fh.read(16)
    with open(source, "rb") as fh:
        expected = importlib.util.source_hash(fh.read())
    # PEP 552 header: magic, flags (0b11 = hash-based, checked on import), source hash.
    checks[entry["path"]] = {
        "magic_ok": header[:4] == importlib.util.MAGIC_NUMBER,
        "flags": int.from_bytes(header[4:8], "little"),
        "hash_ok": header[8:16] == expected,
    }
sys.path.insert(0, root)
api = importlib.import_module("calculator.api")
views = importlib.import_module("calculator.views")
out = json.loads(api.compute_json(json.dumps({"params": {"model_type": "bert", "num_hidden_layers": "6"}}), "en"))
json.dumps({"total": out["total"], "marker": getattr(views, "MARKER", None), "pyc": checks})
`));
