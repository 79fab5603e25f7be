// Run tests/unit/test_*.py inside Pyodide (the npm package, offline, under Node).
// The repository is mounted read-only-in-spirit at /repo; the same calculator/ files the site ships are imported.
// Prints one "N passed, N failed" line; exit status 1 on any failure.
import { loadPyodide } from "pyodide";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const pyodide = await loadPyodide();
pyodide.FS.mkdirTree("/repo");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root }, "/repo");

const runner = `
import importlib, os, sys, traceback
sys.dont_write_bytecode = True
sys.path.insert(0, "/repo")
print("python", sys.version.split()[0], "on", sys.platform)
passed = failed = 0
for fname in sorted(os.listdir("/repo/tests/unit")):
    if not (fname.startswith("test_") and fname.endswith(".py")):
        continue
    module = importlib.import_module("tests.unit." + fname[:-3])
    for name in sorted(dir(module)):
        fn = getattr(module, name)
        if name.startswith("test_") and callable(fn):
            try:
                fn()
                passed += 1
            except Exception:
                failed += 1
                print("FAILED", fname, name)
                traceback.print_exc()
print(f"{passed} passed, {failed} failed")
failed
`;
const failed = await pyodide.runPythonAsync(runner);
process.exit(failed ? 1 : 0);
