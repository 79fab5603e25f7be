"""The CLI's text and Markdown, in English and Chinese, compared with the files in cli/.

The numbers are proven elsewhere (tests/crosscheck against transformers, peft
and torchinfo); these files pin down everything around them, the words, the
layout, the tie notes, the plan lines, so that a change to a renderer shows up
as a diff a reviewer reads, and an unintended one fails here.

After an intended change, rewrite them and review the diff before committing:

    .venv/bin/python -m pytest tests/goldens --update-goldens
    git diff tests/goldens

A case's files are ``cli/<case>.<lang>.txt`` (``--format text``) and
``cli/<case>.<lang>.md`` (``--format markdown``). A file no case writes is
stale: the last test fails on it, and ``--update-goldens`` deletes it.
"""
from __future__ import annotations

import contextlib
import difflib
import io
from pathlib import Path

import pytest

from calculator import cli

GOLDENS = Path(__file__).resolve().parent / "cli"

#: case -> the CLI's arguments (its --format and --lang are added per file).
CASES: dict[str, list[str]] = {
    "bert-base-uncased": ["--preset", "bert-base-uncased"],
    "bert-base-uncased-counts": ["--preset", "bert-base-uncased", "--counts"],
    "bert-tiny-full": ["--preset", "google/bert_uncased_L-2_H-128_A-2", "--full"],
    "bert-seq-cls-lora": ["--preset", "bert-base-uncased", "--architecture", "BertForSequenceClassification",
                          "--lora-r", "8", "--peft-task-type", "SEQ_CLS"],
    "bert-freeze-6": ["--preset", "bert-base-uncased", "--freeze-layers", "6"],
    "xlm-roberta-base-mlm": ["--preset", "xlm-roberta-base", "--architecture", "XLMRobertaForMaskedLM"],
    "albert-base-v2": ["--preset", "albert-base-v2"],
    "deberta-v3-base": ["--preset", "microsoft/deberta-v3-base"],
    "modernbert-base": ["--preset", "answerdotai/ModernBERT-base"],
    # Markdown is a summary by default; the per-tensor table is --table (the tie note, a plan's lines).
    "bert-base-uncased-table": ["--preset", "bert-base-uncased", "--table"],
    "xlm-roberta-base-mlm-table": ["--preset", "xlm-roberta-base", "--architecture", "XLMRobertaForMaskedLM", "--table"],
    "bert-seq-cls-lora-table": ["--preset", "bert-base-uncased", "--architecture", "BertForSequenceClassification",
                                "--lora-r", "8", "--peft-task-type", "SEQ_CLS", "--table"],
    # A training step set against a card (issue 35): its assumptions, the sum and what it leaves out.
    "bert-step-gpu": ["--preset", "bert-base-uncased", "--batch", "8", "--seq-len", "128", "--dtype", "bf16",
                      "--grad-checkpointing", "--gpu-gb", "24", "--attention", "eager"],
    # Mixed precision (issue 32): fp32 weights, autocast bf16 around the forward; its sentence, no peak.
    "bert-step-autocast": ["--preset", "bert-base-uncased", "--batch", "8", "--seq-len", "128",
                           "--mixed-precision", "bf16", "--gpu-gb", "24", "--attention", "eager"],
    # The step with SDPA (issue 32): ALBERT's attention dropout is 0 as published, so it runs the flash kernel.
    "albert-step-sdpa": ["--preset", "albert-base-v2", "--batch", "2", "--seq-len", "64", "--attention", "sdpa"],
    # The inference span (issue 32): one forward under no_grad, its exact peak (BERT's forward replayed) against a
    # card; and MPNet's, whose forward is only bounded: no figure, the proven bounds.
    "bert-inference": ["--preset", "bert-base-uncased", "--inference", "--batch", "8", "--seq-len", "128",
                       "--gpu-gb", "24", "--attention", "eager"],
    # The default attention (issue 32): what transformers 5.23 builds the class with, SDPA for BertModel, whose
    # attention dropout 0.1 the fused kernel's figures leave out (the note says so); T5's encoder falls back to eager
    # (its trainable relative bias has no SDPA step here) and says why.
    "bert-step-default": ["--preset", "bert-base-uncased", "--batch", "8", "--seq-len", "128", "--gpu-gb", "24"],
    "t5-step-default": ["--preset", "google/flan-t5-base", "--batch", "2", "--seq-len", "64"],
    "mpnet-inference": ["--preset", "sentence-transformers/all-mpnet-base-v2", "--inference", "--batch", "4",
                        "--seq-len", "256"],
    # SDPA with attention dropout 0.1 (issue 35, reader H1): the fused kernel's figures at attention dropout 0 and
    # the note that says so (what a GPU adds, what CPU's math path would keep).
    "bert-step-sdpa-dropout": ["--preset", "bert-base-uncased", "--batch", "1", "--seq-len", "128", "--attention",
                               "sdpa"],
}
FORMATS = {"text": "txt", "markdown": "md"}
LANGS = ("en", "zh")
FILES = {
    f"{case}.{lang}.{ext}": [*args, "--format", fmt, "--lang", lang]
    for case, args in CASES.items() for fmt, ext in FORMATS.items() for lang in LANGS
}


def run_cli(argv: list[str]) -> str:
    """What ``bert-params ARGV`` prints (in-process: the same ``main``, no interpreter start-up)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(argv)
    assert status == 0, f"bert-params {' '.join(argv)} exited {status}: {err.getvalue()}"
    return out.getvalue()


@pytest.mark.parametrize("name", sorted(FILES))
def test_cli_output_matches_its_golden_file(name, request):
    got = run_cli(FILES[name])
    path = GOLDENS / name
    if request.config.getoption("--update-goldens"):
        GOLDENS.mkdir(exist_ok=True)
        path.write_text(got, encoding="utf-8")
        return
    assert path.is_file(), f"{path.name} is missing: write it with `pytest tests/goldens --update-goldens`"
    want = path.read_text(encoding="utf-8")
    if got != want:
        diff = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                            f"golden/{name}", f"bert-params {' '.join(FILES[name])}"))
        pytest.fail(f"the output differs from {path.name} (if intended: pytest tests/goldens --update-goldens,"
                    f" then review git diff):\n{diff}", pytrace=False)


def test_no_golden_file_is_stale(request):
    stale = sorted(p.name for p in GOLDENS.glob("*") if p.name not in FILES)
    if request.config.getoption("--update-goldens"):
        for name in stale:
            (GOLDENS / name).unlink()
        return
    assert stale == [], "golden files no case writes (delete them, or run with --update-goldens)"
