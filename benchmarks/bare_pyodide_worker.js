// Worker of benchmarks/bare_pyodide_worker.html: load the site's Pyodide, run one import, say so.
import { loadPyodide } from "../assets/pyodide/pyodide.mjs";

const pyodide = await loadPyodide({ indexURL: new URL("../assets/pyodide/", import.meta.url).href, packages: [] });
pyodide.runPython("import json");
postMessage("done");
