"""Helpers shared by the browser tests (fixtures live in conftest.py)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.chromium import CHROMIUM_ARGS  # noqa: F401  (one list for every suite)
from tests.harness import HANG_MS, ROOT, SUBPATH  # noqa: F401  (ROOT, SUBPATH: imported from here by tests)

#: A hang guard, never a verdict (tests/harness.py: HANG_MS).
BOOT_TIMEOUT_MS = HANG_MS


def run_cli(config: dict, architecture: str | None = None, pooler: bool | None = None,
            fmt: str = "json", lang: str = "en", tmp_path: Path | None = None) -> str:
    """``python -m calculator`` as a user runs it, in a subprocess, on a config.json file."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, dir=tmp_path) as fh:
        json.dump(config, fh)
        name = fh.name
    try:
        args = [sys.executable, "-m", "calculator", "--config", name, "--format", fmt, "--lang", lang]
        if architecture:
            args += ["--architecture", architecture]
        if pooler is False:
            args.append("--no-pooler")
        proc = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout
    finally:
        os.unlink(name)


def wait_ready(page) -> None:
    page.wait_for_selector("#calc-root[data-state=ready]", state="attached", timeout=BOOT_TIMEOUT_MS)


def wait_settled(page) -> None:
    """Python is up and no request is in flight."""
    wait_ready(page)
    page.wait_for_selector("#calc-root:not([data-busy])", state="attached", timeout=BOOT_TIMEOUT_MS)


def wait_total(page, total: int) -> None:
    page.wait_for_selector(f'#calc-root [data-total="{total}"]', state="visible", timeout=BOOT_TIMEOUT_MS)
    wait_settled(page)


def wait_error(page, code: str):
    wait_settled(page)
    loc = page.locator(f'[data-error-code="{code}"]')
    loc.wait_for(state="visible", timeout=BOOT_TIMEOUT_MS)
    return loc


PAGE_NUMBERS_JS = """() => {
  const out = document.getElementById('calc-output');
  const pairs = (sel, attr, val) => Array.from(out.querySelectorAll(sel)).map(
    (e) => [e.getAttribute(attr), Number(e.getAttribute(val))]);
  const total = document.querySelector('#calc-summary [data-total]');
  const ftotal = out.querySelector('[data-formula-total]');
  return {
    total: total ? Number(total.dataset.total) : null,
    total_text: total ? total.textContent : null,
    short: document.querySelector('#calc-summary [data-short]').dataset.short,
    groups: pairs('tr[data-group]', 'data-group', 'data-count'),
    sections: pairs('tr[data-section]', 'data-section', 'data-count'),
    layers: pairs('tr[data-layer]', 'data-layer', 'data-count'),
    memory: pairs('tr[data-dtype]', 'data-dtype', 'data-bytes'),
    tensors: pairs('tr[data-name]', 'data-name', 'data-count'),
    facts: pairs('[data-fact]', 'data-fact', 'data-count'),
    formula: pairs('li[data-formula]', 'data-formula', 'data-count'),
    formula_total: ftotal ? Number(ftotal.dataset.formulaTotal) : null,
  };
}"""


def open_tensors(page) -> None:
    """Open the collapsed per-tensor block (its rows are inserted on opening)."""
    page.evaluate("document.querySelector('#calc-output .calc-tensors').open = true")
    page.wait_for_selector("#calc-output tr[data-name]", state="attached", timeout=BOOT_TIMEOUT_MS)


def page_numbers(page) -> dict:
    open_tensors(page)
    return page.evaluate(PAGE_NUMBERS_JS)


def expected_numbers(js: dict) -> dict:
    """The same shape as :func:`page_numbers`, from the CLI's ``--format json``."""
    facts = []
    if js["trainable"] != js["total"]:
        facts.append(["trainable", js["trainable"]])
    if js["state_dict_total"] != js["total"]:
        facts.append(["state_dict_total", js["state_dict_total"]])
    facts += [["embedding_params", js["embedding"]], ["non_embedding_params", js["non_embedding"]],
              ["num_parameters_exclude_embeddings", js["num_parameters"]["exclude_embeddings"]]]
    f = js["formula"]
    return {
        "total": js["total"],
        "total_text": f"{js['total']:,}",
        "groups": [[g["key"], g["count"]] for g in js["groups"]],
        "sections": [[s["key"], s["count"]] for s in js["sections"]],
        "layers": [[str(r["layer"]), r["count"]] for r in js["per_layer"]],
        "memory": [[m["dtype"], m["bytes"]] for m in js["memory"]],
        "tensors": [[t["name"], t["count"]] for t in js["tensors"]],
        "facts": facts,
        "formula": [] if f is None else [[line["key"], line["value"]] for line in f["lines"]],
        "formula_total": None if f is None else f["total"],
    }


#: Runs ``calculator.cli.main`` (what ``python -m calculator`` calls, __main__.py) on each argv read
#: from stdin, one process for all: a CLI run costs ~0.4 s, nearly all of it Python starting and
#: importing, the answer itself milliseconds.
_CLI_MANY = """
import contextlib, io, json, sys
from calculator.cli import main
answers = []
for argv in json.load(sys.stdin):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as exc:
            status = exc.code
    answers.append([status, out.getvalue(), err.getvalue()])
json.dump(answers, sys.stdout)
"""


def run_cli_many(calls: list[dict], tmp_path: Path | None = None) -> list[str]:
    """:func:`run_cli` for several calls (each a dict of its keyword arguments: ``config``, and
    ``architecture``, ``pooler``, ``fmt``, ``lang`` as there), in one subprocess: the same command
    line each, given to the CLI's ``main`` in turn. Returns each call's stdout, in order."""
    names, argvs = [], []
    try:
        for call in calls:
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, dir=tmp_path) as fh:
                json.dump(call["config"], fh)
                names.append(fh.name)
            argv = ["--config", fh.name, "--format", call.get("fmt", "json"), "--lang", call.get("lang", "en")]
            if call.get("architecture"):
                argv += ["--architecture", call["architecture"]]
            if call.get("pooler") is False:
                argv.append("--no-pooler")
            argvs.append(argv)
        proc = subprocess.run([sys.executable, "-c", _CLI_MANY], cwd=ROOT, input=json.dumps(argvs),
                              capture_output=True, text=True, timeout=60 + 10 * len(calls))
        assert proc.returncode == 0, proc.stderr
        answers = json.loads(proc.stdout)
    finally:
        for name in names:
            os.unlink(name)
    assert len(answers) == len(calls)
    for (status, _, err), argv in zip(answers, argvs):
        assert status == 0, (argv, err)
    return [out for _, out, _ in answers]


def paste(page, text: str) -> None:
    """Paste ``text`` into the config.json box (opened first if closed) and apply it."""
    if page.get_attribute("#calc-config-box", "open") is None:
        page.click("#calc-config-box summary")
    page.fill("#calc-config", text)
    page.click("#calc-config-apply")


def close_paste_box(page) -> None:
    """The config.json box closed, as a page opens it."""
    if page.get_attribute("#calc-config-box", "open") is not None:
        page.click("#calc-config-box summary")
    page.wait_for_selector("#calc-config-box:not([open])", state="attached")


#: Whether the paste box's summary is in the viewport and not covered (the point a reader clicks is its own).
PASTE_BOX_SEEN_JS = """() => {
  const s = document.querySelector('#calc-config-box summary');
  const r = s.getBoundingClientRect();
  if (r.width === 0 || r.bottom <= 0 || r.top >= innerHeight) return false;
  const hit = document.elementFromPoint(r.left + Math.min(r.width / 2, 40), r.top + r.height / 2);
  return Boolean(hit && s.contains(hit));
}"""


def back_to_the_default(page, total: int) -> None:
    """The page's default answer from any state, as a reader gets there: bert-base-uncased picked, its base
    class, the pooler on (a preset sets sizes, not the class or the pooler choice); waits for ``total``
    (the caller's CLI figure). The labels field (num_labels) is left as it is: the base class has no head."""
    page.select_option("#calc-preset", "bert-base-uncased")
    page.select_option("#calc-architecture", "BertModel")
    page.check("#calc-pooler")
    wait_total(page, total)
