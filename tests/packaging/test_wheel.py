"""The package as a user gets it: a wheel, installed in a fresh venv outside the checkout.

The tests everywhere else import ``calculator`` from the repository root
(tests/conftest.py puts it on ``sys.path``), so they cannot see what ``pip
install .`` leaves out: a subpackage missing from the wheel (``calculator.page``
once was, and ``import calculator.api`` failed) passes every other test. Here
the sources are copied to a temporary directory, built into a wheel there
(``pip wheel --no-deps --no-build-isolation --no-index``: offline, with the
setuptools requirements/test.txt pins), installed with ``--no-deps`` into a
new venv made without the project's site-packages, and run from a directory
that is not the checkout: the console script ``bert-params`` and the page's
entry point ``calculator.api.compute``. A few seconds.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: What ``pip wheel`` reads: the project table, the readme and licence it names, the package.
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "calculator")
#: A guard against a hung pip, not a speed limit (the whole test takes seconds).
HANG_GUARD_S = 600


def _bert_base_by_hand() -> int:
    """BertModel (with its pooler) for bert-base-uncased, derived from the architecture by hand.

    V=30522 words, P=512 positions, T=2 token types, H=768, I=3072, L=12 layers
    (the model card's config). Embeddings: three tables of H plus a LayerNorm
    (weight and bias). A layer: Q, K, V and the attention output (H×H + H each),
    its LayerNorm, the FFN's two linears (H×I + I, I×H + H), its LayerNorm. The
    pooler: one H×H + H linear. transformers 5.23 agrees: tests/crosscheck.
    """
    V, P, T, H, I, L = 30522, 512, 2, 768, 3072, 12
    embeddings = (V + P + T) * H + 2 * H
    layer = 4 * (H * H + H) + 2 * H + (H * I + I) + (I * H + H) + 2 * H
    pooler = H * H + H
    return embeddings + L * layer + pooler


def _env() -> dict[str, str]:
    """The environment without anything that would put the checkout on the path."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}


def _run(args: list[str], cwd: Path) -> str:
    proc = subprocess.run(args, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert proc.returncode == 0, f"{args[:3]} exited {proc.returncode}:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    return proc.stdout


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    """A fresh venv (no pip, no site-packages of ours) with the wheel built from a copy of the sources."""
    top = tmp_path_factory.mktemp("wheel")
    src = top / "src"
    src.mkdir()
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(path, src / name)
    dist = top / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "--no-index",
          "-w", str(dist), str(src)], cwd=top)
    wheels = list(dist.glob("*.whl"))
    assert len(wheels) == 1, wheels
    env = top / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(env)], cwd=top)
    # The venv has no pip of its own: this pip installs into it (pip's --python).
    _run([sys.executable, "-m", "pip", "--python", str(env / "bin" / "python"), "install", "-q",
          "--no-deps", "--no-index", str(wheels[0])], cwd=top)
    return env


def test_the_wheel_holds_every_module_of_the_package(venv):
    installed = next(venv.glob("lib/python*/site-packages/calculator"))
    shipped = {p.relative_to(installed).as_posix() for p in installed.rglob("*.py")}
    source = {p.relative_to(ROOT / "calculator").as_posix() for p in (ROOT / "calculator").rglob("*.py")}
    assert shipped == source


def test_bert_params_from_the_installed_wheel(venv, tmp_path):
    out = _run([str(venv / "bin" / "bert-params"), "--preset", "bert-base-uncased", "--format", "json"], cwd=tmp_path)
    answer = json.loads(out)
    assert answer["architecture"] == "BertModel"
    assert answer["total"] == _bert_base_by_hand() == 109_482_240
    # The installed package answers what the checkout answers, byte for byte.
    here = _run([sys.executable, "-m", "calculator", "--preset", "bert-base-uncased", "--format", "json"], cwd=ROOT)
    assert out == here


def test_the_page_entry_point_from_the_installed_wheel(venv, tmp_path):
    script = (
        "import json, calculator, calculator.api as api\n"
        "r = api.compute({'preset': 'bert-base-uncased'}, 'zh')\n"
        "print(json.dumps({'file': calculator.__file__, 'ok': r['ok'], 'total': r.get('total'),"
        " 'html': '<' in r.get('html', ''), 'widget': len(api.render_widget('en')) > 0}))\n"
    )
    answer = json.loads(_run([str(venv / "bin" / "python"), "-c", script], cwd=tmp_path))
    assert Path(answer["file"]).is_relative_to(venv), answer["file"]  # not the checkout's copy
    assert answer["ok"] is True
    assert answer["total"] == _bert_base_by_hand()
    assert answer["html"] and answer["widget"]
