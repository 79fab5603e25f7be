"""The CLI as a separate process, as a user runs it: exit codes, stderr, no tracebacks."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "calculator", *args], cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=60
    )


def test_json_output_from_stdin_config():
    cfg = json.dumps({"model_type": "bert", "architectures": ["BertForMaskedLM"], "vocab_size": 30522})
    p = run("--config", "-", "--format", "json", stdin=cfg)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert (out["architecture"], out["total"], out["state_dict_total"]) == ("BertForMaskedLM", 109_514_298, 132_985_716)


@pytest.mark.parametrize(
    ("stdin", "args", "code"),
    [
        ("{", [], "invalid_json"),
        ("[]", [], "not_an_object"),
        ('{"hidden_size": 770}', [], "heads_not_divisor"),
        ('{"hidden_size": -1}', [], "negative"),
        ('{"hidden_size": "768px"}', [], "not_integer"),
        ('{"model_type": "longt5"}', [], "unknown_model_type"),
        ("{}", ["--architecture", "BertForTranslation"], "unknown_architecture"),
        ('{"vocab_size": 100000000000}', [], "too_large"),
        ("\udcff", [], "invalid_json"),
    ],
)
def test_bad_input_is_one_line_exit_2(stdin, args, code):
    p = subprocess.run(
        [sys.executable, "-m", "calculator", "--config", "-", *args], cwd=ROOT,
        input=stdin.encode("utf-8", "surrogateescape"), capture_output=True, timeout=60,
    )
    err = p.stderr.decode("utf-8", "replace")
    assert p.returncode == 2
    assert err.startswith(f"error: {code}:"), err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert p.stdout == b""


def test_missing_file_and_bad_flag():
    p = run("--config", "/definitely/not/here.json")
    assert p.returncode == 2 and p.stderr.startswith("error:") and "Traceback" not in p.stderr
    p = run("--format", "yaml")
    assert p.returncode == 2 and p.stderr.startswith("error:") and "Traceback" not in p.stderr
