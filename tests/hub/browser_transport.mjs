// calculator/hub.py's browser path (run_async + fetch_browser: the fetch API, no header but Range,
// cache "no-store", the body read as a stream and cancelled at the request's limit), run by the site's
// own Pyodide under Node, whose fetch is the same WHATWG API a browser's is.
//
//   node tests/hub/browser_transport.mjs <endpoint> <model id> [<endpoint> <model id> ...]
//
// Prints one JSON line, a list with one entry per pair (one Pyodide start for all): the checkpoint read
// ({sha, files, tensors: [[name, dtype, count]], ...}) and the progress the page would show
// ([requests, bytes] after each answer), or {error: {code, message}}.
import { loadPyodide } from "pyodide";
import path from "node:path";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const pairs = [];
for (let i = 0; i + 1 < args.length; i += 2) pairs.push([args[i], args[i + 1]]);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const pyodide = await loadPyodide({ packages: [] });
pyodide.FS.mkdirTree("/repo");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root }, "/repo");
pyodide.globals.set("PAIRS", JSON.stringify(pairs));
const out = await pyodide.runPythonAsync(`
import json, sys
sys.path.insert(0, "/repo")
from calculator import hub
from calculator.errors import CalcError

async def read(endpoint, model):
    seen = []
    def progress(requests, read):
        seen.append((requests, read))
    try:
        cp = await hub.run_async(hub.lookup(hub.parse_model_id(model), endpoint), hub.fetch_browser, progress)
        return {"sha": cp.sha, "files": list(cp.files), "parameters": cp.parameters, "by_dtype": cp.by_dtype,
                "api_total": cp.api_total, "tensors": [[t.name, t.dtype, t.count] for t in cp.tensors],
                "dense": [d.count for d in cp.sentence.dense] if cp.sentence else None, "progress": seen}
    except CalcError as exc:
        return {"error": {"code": exc.code, "message": exc.message("en")}, "progress": seen}

answer = [await read(endpoint, model) for endpoint, model in json.loads(PAIRS)]
json.dumps(answer)
`);
console.log(out);
