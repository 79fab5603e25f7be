// Worker of benchmarks/bare_pyodide_worker.html: load the site's Pyodide, run one import, say so.
// With ?stdlib=precompiled, start it on the build's precompiled standard library
// (assets/pyodide-stdlib/, see sitegen/compile_stdlib.mjs) as the calculator's worker does.
import { loadPyodide } from "../assets/pyodide/pyodide.mjs";

const options = { indexURL: new URL("../assets/pyodide/", import.meta.url).href, packages: [] };
if (new URL(import.meta.url).searchParams.get("stdlib") === "precompiled") {
  options.stdLibURL = new URL("../assets/pyodide-stdlib/python_stdlib.zip", import.meta.url).href;
}
const pyodide = await loadPyodide(options);
pyodide.runPython("import json");
postMessage("done");
