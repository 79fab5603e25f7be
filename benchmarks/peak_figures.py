"""The worked peak figures of the reader-review's setups, measured with the peak harness on fake tensors.

Issue 32 asks for deberta-v3-large at B=16, L=512, bge-m3 at B=16, L=1024 and ModernBERT-base at
B=16, L=8192 with checkpointing: eager vs SDPA, fp32 vs autocast. Real tensors of these sizes need
tens of GiB and minutes of CPU; fake tensors (``FakeTensorMode``: shapes, dtypes and the same
operations, no memory) give the same live-storage figures in seconds each
(``tests/crosscheck/test_peak_reference.py::test_fake_tensors_and_rounding_routes_agree`` holds the
two routes equal on tiny steps).

For each setup: the issue's peak (bytes), its phase and op, the same with every storage rounded up to
512 bytes (CUDA's block), and where asked PyTorch's MemTracker (rounded likewise). ``--steps 2`` runs the
reader-review's two steps (zero_grad between), whose figures it quotes.

    .venv/bin/python benchmarks/peak_figures.py [--json tests/crosscheck/reference/peak_figures.json]

These are references for the engine: a page cites them only once the engine reproduces them.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.crosscheck.peak_measure import Step, measure_peak, memtracker_step  # noqa: E402

GIB = 2**30

DEBERTA_V3_LARGE = {"vocab_size": 128100, "hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16,
                    "intermediate_size": 4096, "max_position_embeddings": 512, "type_vocab_size": 0,
                    "relative_attention": True, "max_relative_positions": -1, "position_buckets": 256,
                    "norm_rel_ebd": "layer_norm", "share_att_key": True, "pos_att_type": "p2c|c2p",
                    "position_biased_input": False}
BGE_M3 = {"vocab_size": 250002, "hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16,
          "intermediate_size": 4096, "max_position_embeddings": 8194, "type_vocab_size": 1, "pad_token_id": 1}
MODERNBERT_BASE = {"vocab_size": 50368, "hidden_size": 768, "num_hidden_layers": 22, "num_attention_heads": 12,
                   "intermediate_size": 1152, "max_position_embeddings": 8192, "pad_token_id": 50283,
                   "norm_bias": False, "attention_bias": False, "mlp_bias": False, "decoder_bias": True,
                   "classifier_bias": False, "classifier_pooling": "mean"}

MODELS = {
    "deberta-v3-large": ("deberta-v2", "DebertaV2ForSequenceClassification", DEBERTA_V3_LARGE, 16, 512),
    "bge-m3": ("xlm-roberta", "XLMRobertaForSequenceClassification", BGE_M3, 16, 1024),
    "ModernBERT-base": ("modernbert", "ModernBertForSequenceClassification", MODERNBERT_BASE, 16, 8192),
}

#: (model, attention, precision, checkpointing[, batch]) — precision: fp32, bf16 (the cast) or autocast
#: (fp32 weights, bf16 autocast around the forward).
SETUPS = [
    ("deberta-v3-large", "eager", "fp32", False), ("deberta-v3-large", "eager", "bf16", False),
    ("deberta-v3-large", "eager", "autocast", False),
    ("deberta-v3-large", "eager", "fp32", "non-reentrant"), ("deberta-v3-large", "eager", "bf16", "non-reentrant"),
    ("deberta-v3-large", "eager", "autocast", "non-reentrant"), ("deberta-v3-large", "eager", "bf16", "reentrant"),
    ("bge-m3", "eager", "fp32", False), ("bge-m3", "sdpa", "fp32", False),
    ("bge-m3", "eager", "bf16", False), ("bge-m3", "sdpa", "bf16", False),
    ("bge-m3", "eager", "autocast", False), ("bge-m3", "sdpa", "autocast", False),
    ("bge-m3", "sdpa", "fp32", "non-reentrant"), ("bge-m3", "sdpa", "bf16", "non-reentrant"),
    ("bge-m3", "sdpa", "autocast", "non-reentrant"), ("bge-m3", "eager", "bf16", "non-reentrant"),
    ("ModernBERT-base", "eager", "bf16", "reentrant"), ("ModernBERT-base", "eager", "bf16", "non-reentrant"),
    ("ModernBERT-base", "sdpa", "bf16", "non-reentrant"), ("ModernBERT-base", "sdpa", "fp32", "non-reentrant"),
    ("ModernBERT-base", "sdpa", "autocast", "non-reentrant"), ("ModernBERT-base", "eager", "autocast", "non-reentrant"),
    ("ModernBERT-base", "sdpa", "bf16", False, 1), ("ModernBERT-base", "eager", "bf16", False, 1),
    ("ModernBERT-base", "sdpa", "bf16", "non-reentrant", 1), ("ModernBERT-base", "eager", "bf16", "reentrant", 1),
]


#: The reader-review's rows (reader-review-2.md's table: AdamW, two steps), which ``--steps 2`` reruns.
READER = [
    ("deberta-v3-large", "eager", "bf16", False), ("deberta-v3-large", "eager", "bf16", "non-reentrant"),
    ("deberta-v3-large", "eager", "autocast", False), ("bge-m3", "eager", "bf16", False),
    ("bge-m3", "sdpa", "bf16", False), ("bge-m3", "sdpa", "bf16", "non-reentrant"),
    ("ModernBERT-base", "sdpa", "bf16", False, 1), ("ModernBERT-base", "eager", "bf16", "reentrant"),
    ("ModernBERT-base", "sdpa", "bf16", "non-reentrant"), ("ModernBERT-base", "eager", "bf16", "reentrant", 1),
]


def step_of(setup, steps: int) -> Step:
    name, attention, precision, ckpt, *batch = setup
    model_type, arch, config, b, seq_len = MODELS[name]
    return Step(model_type, arch, config, batch=batch[0] if batch else b, seq_len=seq_len, attention=attention,
                dtype="bf16" if precision == "bf16" else "fp32", autocast=precision == "autocast",
                checkpointing=ckpt, optimizer="adamw", steps=steps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1)
    parser.add_argument("--memtracker", action="store_true", help="also PyTorch's MemTracker (doubles the time)")
    parser.add_argument("--only", default="", help="a model name to run alone")
    parser.add_argument("--json", default="")
    args = parser.parse_args()
    rows = []
    for setup in READER if args.steps == 2 else SETUPS:
        if args.only and setup[0] != args.only:
            continue
        step = step_of(setup, args.steps)
        t0 = time.perf_counter()
        row = {"model": setup[0], "attention": setup[1], "precision": setup[2], "checkpointing": setup[3],
               "batch": step.batch, "seq_len": step.seq_len, "steps": args.steps}
        try:
            exact = measure_peak(step, fake=True)
            rounded = measure_peak(step, round_to=512, fake=True)
        except Exception as exc:  # a step PyTorch cannot run (DeBERTa with reentrant checkpointing)
            row["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
            print(json.dumps(row), flush=True)
            rows.append(row)
            continue
        kernels = sorted({op for op, _ in exact.timeline if "scaled_dot_product" in op})
        row.update(peak=exact.peak, phase=exact.phase, op=exact.op, peak_512=rounded.peak,
                   phase_512=rounded.phase, forward_end=exact.phase_live.get("loss"),
                   by_kind=exact.by_kind(), top=exact.at_peak[:6], attention_kernels=kernels,
                   ran_with=exact.attention)
        if args.memtracker:
            row["memtracker_512"] = memtracker_step(step)["Total"]
        row["seconds"] = round(time.perf_counter() - t0, 1)
        print(json.dumps(row), flush=True)
        rows.append(row)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    print()
    print("| model | B | L | attention | precision | checkpointing | peak GiB | phase | 512-rounded GiB |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "error" in r:
            print(f"| {r['model']} | {r['batch']} | {r['seq_len']} | {r['attention']} | {r['precision']} | "
                  f"{r['checkpointing'] or 'off'} | fails: {r['error']} | | |")
            continue
        print(f"| {r['model']} | {r['batch']} | {r['seq_len']} | {r['attention']} | {r['precision']} | "
              f"{r['checkpointing'] or 'off'} | {r['peak'] / GIB:.2f} | {r['phase']} ({r['op']}) | "
              f"{r['peak_512'] / GIB:.2f} |")


if __name__ == "__main__":
    main()
