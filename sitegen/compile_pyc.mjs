// Compile the calculator's served sources to bytecode with the site's own Pyodide.
//
//   node sitegen/compile_pyc.mjs <dir>      (<dir> holds calculator/**/*.py)
//
// Called by sitegen/calculator_assets.py at build time. The .pyc files are
// "checked-hash" pycs (PEP 552): each records a hash of the exact source bytes
// it came from, and Python compares that hash with the .py file beside it on
// every import, recompiling from the source if they differ. So the browser still
// runs the shipped calculator/*.py; it only skips compiling them again (~40 ms of
// Python compile in the worker, on the way to the page's first answer).
// The interpreter is the one the worker runs (node_modules/pyodide), so the
// bytecode's magic number matches. Prints one JSON line: the files written.
import { loadPyodide } from "pyodide";
import path from "node:path";

const dir = path.resolve(process.argv[2] || "");
if (!process.argv[2]) {
  console.error("usage: node sitegen/compile_pyc.mjs <dir>");
  process.exit(2);
}
// Without column positions (-X no_debug_ranges): the files are ~40% smaller; a
// traceback through the calculator loses only its ^^^ markers. At optimize level 2
// (-OO: no docstrings, no asserts), written under the plain cache name the import
// system looks for: the checked hash ties each file to its source all the same, and
// nothing in calculator/ reads a docstring (the reader's page is not a help() call);
// ~18% smaller again, which keeps a shared link's answer within its 5.5 MB.
const pyodide = await loadPyodide({ packages: [], env: { PYTHONNODEBUGRANGES: "1" } });
pyodide.FS.mkdirTree("/served");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: dir }, "/served");
const written = pyodide.runPython(`
import json, pathlib, py_compile, importlib.util
assert all(column is None for *_, column in compile("x = 1", "-", "exec").co_positions()), "debug ranges are on"
root = pathlib.Path("/served")
out = []
for src in sorted((root / "calculator").rglob("*.py")):
    target = importlib.util.cache_from_source(str(src))
    py_compile.compile(str(src), cfile=target, doraise=True, optimize=2,
                       invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
    out.append(pathlib.Path(target).relative_to(root).as_posix())
json.dumps(out)
`);
console.log(written);
