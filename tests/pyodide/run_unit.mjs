// Run tests/unit/test_*.py inside the site's Pyodide (the npm package, offline, under Node).
//
//   node tests/pyodide/run_unit.mjs <built python_stdlib.zip> <npm python_stdlib.zip> <npm-modules.json> [K/N]
//
// K/N: run only the K-th of N shards (0-based): the tests in order (files sorted, names
// sorted within a file), every N-th from the K-th. Shards let the suite's workers run the
// unit suite in Pyodide side by side (tests/pyodide/test_unit_in_pyodide.py).
//
// <npm-modules.json>: the module names npm's zip holds (read by the caller,
// tests/pyodide/test_unit_in_pyodide.py, so that this harness imports nothing the
// shipped zip lacks, not even zipfile's cp437 codec).
//
// Pyodide starts on the standard library the site ships (sitegen/compile_stdlib.mjs:
// only the modules Pyodide's start and the calculator import), exactly as
// docs/assets/js/worker.js starts it, so this proves that zip is complete for every
// path the unit tests take. Any import of a standard library module left out of it
// fails loudly: a finder at the end of sys.meta_path raises ModuleNotFoundError and
// records it, so even an `except ImportError` cannot hide it (the report lists it).
// The exceptions: a module the tests themselves import to compare against (a test
// file's own `import html`, not the calculator's), and one the command line's own
// modules import (calculator/cli.py's argparse: the site does not ship the CLI,
// sitegen/calculator_assets.py CLI_ONLY), come from npm's zip and are listed apart. The repository is mounted at /repo; the same calculator/ files the site
// ships are imported. Prints "N passed, N failed" and then one JSON line;
// exit status 1 on any failure or any import outside the zip.
import { loadPyodide } from "pyodide";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const [builtZip, npmZip, npmModules, shardArg = "0/1"] = process.argv.slice(2);
const [shard, shards] = shardArg.split("/").map(Number);
if (!(Number.isInteger(shard) && Number.isInteger(shards) && 0 <= shard && shard < shards)) {
  console.error(`run_unit.mjs: a shard is K/N with 0 <= K < N, not ${shardArg}`);
  process.exit(2);
}
if (!npmModules) {
  console.error("usage: node tests/pyodide/run_unit.mjs <built python_stdlib.zip> <npm python_stdlib.zip> <npm-modules.json>");
  process.exit(2);
}
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const pyodide = await loadPyodide({ packages: [], stdLibURL: path.resolve(builtZip) });
pyodide.FS.mkdirTree("/repo");
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root }, "/repo");
pyodide.FS.writeFile("/npm-stdlib.zip", fs.readFileSync(npmZip));
pyodide.FS.writeFile("/npm-modules.json", fs.readFileSync(npmModules));

const runner = `
import importlib, json, os, sys, traceback, zipimport
sys.dont_write_bytecode = True
[stdlib] = [p for p in sys.path if p.endswith(".zip")]
NPM = "/npm-stdlib.zip"
with open("/npm-modules.json", encoding="utf-8") as fh:
    npm_modules = set(json.load(fh))
outside, for_tests, for_cli = [], [], []
# The command line's own modules, which the site does not ship (sitegen/calculator_assets.py CLI_ONLY).
CLI_ONLY = ("/repo/calculator/__main__.py", "/repo/calculator/cli.py")


def asked_by():
    """Who wrote the import: "test" (a test file), "cli" (the CLI's own modules), or None
    (the code the page runs): the innermost frame in the repository decides."""
    frame = sys._getframe(2)
    while frame is not None:
        where = frame.f_code.co_filename
        if where in CLI_ONLY:
            return "cli"
        if where.startswith("/repo/calculator/"):
            return None
        if where.startswith("/repo/tests/"):
            return "test"
        frame = frame.f_back  # the import machinery, the standard library: look further out
    return None


class OutsideTheShippedStdlib:
    """Last on sys.meta_path: reached only when no module of that name was found."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name not in npm_modules:
            return None  # not a standard library module at all: the usual ModuleNotFoundError
        who = asked_by()
        if who is not None:
            (for_tests if who == "test" else for_cli).append(name)
            parent = name.rpartition(".")[0]
            return zipimport.zipimporter(NPM + ("/" + parent.replace(".", "/") if parent else "")).find_spec(name)
        caller = sys._getframe(1)
        while caller is not None and (caller.f_code.co_filename.startswith("<frozen")):
            caller = caller.f_back
        outside.append([name, caller.f_code.co_filename if caller else None])
        raise ModuleNotFoundError(f"{name} is not in the standard library the site ships ({stdlib})", name=name)


sys.meta_path.append(OutsideTheShippedStdlib)

# The guard itself, checked: an import written in the calculator's code, of a module
# npm's zip has and the shipped one lacks, must raise and be recorded.
probe = next(n for n in ("wave", "colorsys", "csv", "tomllib")
             if n in npm_modules and zipimport.zipimporter(stdlib).find_spec(n) is None)
try:
    exec(compile(f"import {probe}", "/repo/calculator/__guard_check__.py", "exec"), {})
    guard_check = False
except ModuleNotFoundError:
    guard_check = outside == [[probe, "/repo/calculator/__guard_check__.py"]]
outside.clear()

sys.path.insert(0, "/repo")
print("python", sys.version.split()[0], "on", sys.platform, f"shard {SHARD}/{SHARDS}")
passed = failed = index = 0
for fname in sorted(os.listdir("/repo/tests/unit")):
    if not (fname.startswith("test_") and fname.endswith(".py")):
        continue
    module = importlib.import_module("tests.unit." + fname[:-3])
    for name in sorted(dir(module)):
        fn = getattr(module, name)
        if name.startswith("test_") and callable(fn):
            index += 1
            if (index - 1) % SHARDS != SHARD:
                continue
            try:
                fn()
                passed += 1
            except Exception:
                failed += 1
                print("FAILED", fname, name)
                traceback.print_exc()
print(f"{passed} passed, {failed} failed")
loaded = sorted({m.__spec__.origin for m in list(sys.modules.values())
                 if getattr(m, "__spec__", None) is not None and isinstance(m.__spec__.loader, zipimport.zipimporter)})
print(json.dumps({"passed": passed, "failed": failed, "outside": outside, "for_tests": sorted(set(for_tests)), "for_cli": sorted(set(for_cli)),
                  "guard_check": guard_check,
                  "stdlib": stdlib, "loaded": loaded}))
failed + len(outside) + (not guard_check)
`;
pyodide.globals.set("SHARD", shard);
pyodide.globals.set("SHARDS", shards);
const bad = await pyodide.runPythonAsync(runner);
process.exit(bad ? 1 : 0);
