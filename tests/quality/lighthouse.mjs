#!/usr/bin/env node
// Lighthouse's own CLI (node_modules/lighthouse, same flags, same report), ending
// the process as soon as the report is written.
//
// Why not node_modules/.bin/lighthouse itself: Lighthouse 12's ImageElements
// gatherer arms a 5 s budget timer it never clears
// (core/gather/gatherers/image-elements.js, collectExtraDetails), so the CLI's
// Node process sits idle for the rest of those 5 s after Chrome is gone:
// ~4.5 s of every run spent waiting, measured with strace (wait4 on Chrome,
// then nothing until exit_group). Nothing is left to do by then: the report is
// saved and Chrome killed before begin() returns, and every error path exits
// on its own (printErrorAndExit).
//
// usage: node tests/quality/lighthouse.mjs URL [lighthouse flags...]
import { begin } from "lighthouse/cli/bin.js";

await begin();
process.exit(process.exitCode ?? 0);
