"""The "Check it yourself" snippets are real files, included in the page, and they print the module's numbers."""
from __future__ import annotations

import ast
import os
import shlex
import subprocess
import sys

import pytest

from calculator import views
from calculator.build import build
from calculator.presets import PRESETS

from .builtsite import LANGS, ROOT, Site

SNIPPETS = ROOT / "docs_src"
PAGE = "check-it-yourself.md"


def _run(args: list[str], timeout: int = 300) -> str:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    proc = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


@pytest.fixture(scope="module")
def torch_output() -> str:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    return _run([sys.executable, str(SNIPPETS / "torch_count.py")])


def test_torch_snippet_prints_the_module_numbers(torch_output: str):
    base = build(PRESETS["bert-base-uncased"].config)
    mlm = build(PRESETS["bert-base-uncased"].config, architecture="BertForMaskedLM")
    expected = [f"BertModel: {base.total:,}"]
    expected += [f"  {s.key}: {s.count:,}" for s in views.section_breakdown(base)]
    expected += [f"BertForMaskedLM: {mlm.total:,}", f"BertForMaskedLM state_dict: {mlm.state_dict_total:,}"]
    assert torch_output.splitlines() == expected


@pytest.mark.parametrize("lang", LANGS)
def test_page_shows_what_the_torch_snippet_prints(site: Site, torch_output: str, lang: str):
    assert torch_output.rstrip("\n") in [b.rstrip("\n") for b in site.page(PAGE, lang).code_blocks]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", ["torch_count.py", "keras_count.py", "cli.sh"])
def test_snippet_is_included_not_copied(site: Site, name: str, lang: str):
    """The page's code block is the file, byte for byte (pymdownx.snippets), and no page source copies it."""
    content = (SNIPPETS / name).read_text(encoding="utf-8").rstrip("\n")
    assert content in [b.rstrip("\n") for b in site.page(PAGE, lang).code_blocks]
    source = (ROOT / "docs" / (PAGE if lang == "en" else PAGE.replace(".md", ".zh.md"))).read_text(encoding="utf-8")
    assert f'--8<-- "{name}"' in source


def test_keras_snippet_is_valid_python():
    source = (SNIPPETS / "keras_count.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "get_model"]
    assert len(calls) == 1 and all(isinstance(k.value, ast.Constant) for k in calls[0].keywords)


def _cli_commands() -> list[list[str]]:
    out = []
    for line in (SNIPPETS / "cli.sh").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("python -m calculator") and "--config" not in line:
            out.append(shlex.split(line))
    return out


def test_cli_snippet_commands_run():
    commands = _cli_commands()
    assert commands, "cli.sh lists no runnable command"
    for argv in commands:
        _run([sys.executable] + argv[1:], timeout=60)


@pytest.mark.parametrize("lang", LANGS)
def test_page_shows_the_start_of_the_cli_report(site: Site, lang: str):
    argv = _cli_commands()[0] + (["--lang", "zh"] if lang == "zh" else [])
    report = _run([sys.executable] + argv[1:], timeout=60)
    shown = [b for b in site.page(PAGE, lang).code_blocks if b.startswith(report.splitlines()[0])]
    assert shown, "the CLI output block is missing"
    head = shown[0].rstrip("\n").rstrip("…").rstrip("\n")
    assert report.startswith(head) and len(head.splitlines()) > 5
