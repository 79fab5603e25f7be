"""The reliability review's crafted inputs, through the CLI as a process: each refused with its code.

Before the fix, ``--modules-to-save`` with ten ``.*`` ran for more than a minute
(peft's pattern, built from the name) and a config nested 5,000 deep or holding a
5,000-digit number got a misleading code. The timeout below only guards against a
hang; a refusal takes a fraction of a second (the verdict is the code, not the time).
The padding bound is checked against torch itself.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HANG = 30  # seconds: only a hang gets near it


def cli(*args: str, stdin: bytes | None = None) -> tuple[subprocess.CompletedProcess, float]:
    start = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "calculator", *args], cwd=ROOT, input=stdin, capture_output=True,
                       timeout=HANG)
    return p, time.monotonic() - start


CASES = [
    ([ "--lora-r", "8", "--modules-to-save", "(.*.*.*.*.*.*.*.*.*.*)Z"], None, "module_name"),
    (["--lora-r", "99999999999999999999"], None, "too_large"),
    (["--config", "-"], ('{"a": ' + "[" * 5000 + "]" * 5000 + "}").encode(), "invalid_json"),
    (["--config", "-"], ('{"vocab_size": ' + "9" * 5000 + "}").encode(), "too_large"),
    (["--config", "-"], b'{"model_type": "bert", "pad_token_id": -40000}', "padding_idx"),
    (["--preset", "constructor"], None, "unknown_preset"),
    (["--preset", "__proto__"], None, "unknown_preset"),
    (["--config", "-"], b'{"model_type": "hasOwnProperty"}', "unknown_model_type"),
]


@pytest.mark.parametrize(("args", "stdin", "code"), CASES, ids=[c[2] + str(i) for i, c in enumerate(CASES)])
def test_crafted_input_is_refused_with_its_code(args, stdin, code):
    p, seconds = cli(*args, stdin=stdin)
    err = p.stderr.decode("utf-8", "replace")
    assert p.returncode == 2, err
    assert err.startswith(f"error: {code}:"), err
    assert "Traceback" not in err and err.count("\n") == 1
    print(f"{code}: {seconds:.2f} s")


def test_byte_order_mark_is_accepted():
    p, _ = cli("--config", "-", "--format", "json", stdin='\ufeff{"model_type": "bert"}'.encode())
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["total"] == 109_482_240


def test_padding_bounds_are_torchs():
    torch = pytest.importorskip("torch")
    from calculator.build import build
    from calculator.errors import CalcError

    for pad in (-101, -100, -1, 0, 99, 100):
        try:
            torch.nn.Embedding(100, 4, padding_idx=pad)
            torch_ok = True
        except AssertionError:
            torch_ok = False
        try:
            build({"model_type": "bert", "vocab_size": 100, "pad_token_id": pad})
            ours = True
        except CalcError as exc:
            assert exc.code == "padding_idx"
            ours = False
        assert ours == torch_ok, pad
