"""The peak and FLOPs of a few training steps on a CUDA GPU, beside the CPU definition's figures.

Issue 32 defines the peak on the CPU (live tensor storages as a TorchDispatchMode sees them) and
proves the engine against it there. A reader's GPU differs: its allocator rounds blocks (512 bytes)
and keeps workspaces (cuBLAS, the fused attention kernels), CUDA's autocast keeps softmax and
LayerNorm in float32, dropout keeps a bool mask (``native_dropout``), AdamW runs ``foreach`` with a
temporary the size of all states, SDPA picks flash / memory-efficient kernels. This script runs,
for each setup (eager/SDPA × fp32 / autocast fp16 / autocast bf16 × checkpointing off / non-reentrant):

* ``engine``: the calculator's own peak and FLOPs (``calculator.costs``), where it takes the setting;
* ``cpu def``: the step as defined, on fake CPU tensors (no memory needed), exact and 512-rounded;
* ``cuda live``: the same definition (LiveBytes) measured on the GPU's real tensors;
* ``cuda max``: ``torch.cuda.max_memory_allocated()`` over the span, from a reset after the model,
  the input and the optimizer are in place (their bytes included);
* FLOPs: ``FlopCounterMode``'s totals for the forward and the backward, on the CPU (fake) and on CUDA.

    .venv/bin/python benchmarks/gpu_check.py [--quick]

Without a CUDA device it says so and exits 0. On one GPU it is meant to run in under 5 minutes: 12
setups of a BERT-base-sized model at B=8, L=512, a few seconds of GPU each, the CPU side on fake
tensors (seconds each); ``--quick``: a 2-layer one at L=128. Not yet timed: no GPU where it was written.
"""
from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

GIB = 2**30

BASE = {"vocab_size": 30522, "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
        "intermediate_size": 3072, "max_position_embeddings": 512, "type_vocab_size": 2}


def setups(quick: bool):
    config = dict(BASE, num_hidden_layers=2) if quick else BASE
    batch, seq_len = (2, 128) if quick else (8, 512)
    for attention in ("eager", "sdpa"):
        for precision in ("fp32", "fp16", "bf16"):
            for ckpt in (False, "non-reentrant"):
                yield dict(model_type="bert", architecture="BertForSequenceClassification", config=config,
                           batch=batch, seq_len=seq_len, attention=attention,
                           autocast=False if precision == "fp32" else precision, checkpointing=ckpt)


def flops(step, fake: bool) -> tuple[int, int]:
    """FlopCounterMode's totals of the forward and of the backward (the module tracker left out, as the
    costs crosscheck does under checkpointing: the totals are the same)."""
    import contextlib

    import torch

    from tests.crosscheck.costs_measure import flop_counter
    from tests.crosscheck.peak_measure import _fake_mode, autocast_context, prepare

    with _fake_mode() if fake else contextlib.nullcontext():
        model, _hf, ids = prepare(step)
        counter = flop_counter(True)
        with warnings.catch_warnings(), counter:
            warnings.simplefilter("ignore")
            with autocast_context(step):
                out = model(input_ids=ids)
        forward = counter.get_total_flops()
        values = out.to_tuple() if hasattr(out, "to_tuple") else tuple(out)
        loss = sum(v.float().sum() for v in values if torch.is_tensor(v) and v.is_floating_point())
        counter = flop_counter(True)
        with counter:
            loss.backward()
        return int(forward), int(counter.get_total_flops())


def engine(options: dict) -> tuple[str, str, str]:
    """The calculator's own figures for the setup (peak GiB, forward and backward FLOPs), or why it has none:
    "—" where the engine does not take the setting yet (SDPA, autocast), its coded refusal or note otherwise."""
    from calculator import build, costs
    from calculator.errors import CalcError

    if options["attention"] != "eager" or options["autocast"]:
        return ("not modelled", "—", "—")
    raw = dict(options["config"], model_type=options["model_type"])
    try:
        s = costs.settings(options["batch"], options["seq_len"], "fp32", "adamw", options["checkpointing"])
        c = costs.compute(build(raw, options["architecture"]), s)
    except CalcError as exc:
        return (exc.code, "—", "—")
    peak = c.peak.bytes if c.peak is not None else None
    shown = f"{peak / GIB:.3f}" if peak is not None else (c.peak.note if c.peak is not None else "—")
    return (shown, f"{c.forward:,}", f"{c.backward:,}")


def cuda_max(step) -> int:
    """``torch.cuda.max_memory_allocated()`` over the issue's span, model, input and optimizer included."""
    import torch

    from tests.crosscheck.peak_measure import _optimizer, prepare, run_span

    torch.cuda.empty_cache()
    model, _hf, ids = prepare(step)
    opt = _optimizer(step, [p for p in model.parameters() if p.requires_grad])
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()

    class NoMode:
        def __enter__(self):
            return self

        def __exit__(self, *args):
            return None

    run_span(step, model, ids, NoMode(), [], opt=opt)
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        print("gpu_check: torch is not installed; skipped.")
        return 0
    if not torch.cuda.is_available():
        print("gpu_check: no CUDA device here; skipped (run it on a machine with a GPU).")
        return 0
    from tests.crosscheck.peak_measure import Step, measure_peak

    print(f"gpu_check on {torch.cuda.get_device_name(0)}, torch {torch.__version__}")
    header = ("attention", "precision", "ckpt", "engine GiB", "cpu def GiB", "cpu 512 GiB", "cuda live GiB",
              "cuda max GiB", "max/def", "fwd FLOPs engine", "fwd FLOPs cpu", "fwd FLOPs cuda", "bwd FLOPs engine",
              "bwd FLOPs cpu", "bwd FLOPs cuda", "s")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    start = time.perf_counter()
    for options in setups(args.quick):
        t0 = time.perf_counter()
        cpu_step = Step(**options)
        cuda_step = Step(**options, device="cuda")
        if cpu_step.autocast == "fp16":  # the CPU definition's autocast is bf16; fp16's shapes and bytes are equal
            cpu_step.autocast = "bf16"
        cpu = measure_peak(cpu_step, fake=True)
        cpu512 = measure_peak(cpu_step, round_to=512, fake=True)
        live = measure_peak(cuda_step)
        peak = cuda_max(cuda_step)
        f_cpu = flops(cpu_step, fake=True)
        f_cuda = flops(cuda_step, fake=False)
        ours = engine(options)
        row = (options["attention"], options["autocast"] or "fp32", options["checkpointing"] or "off", ours[0],
               f"{cpu.peak / GIB:.3f}", f"{cpu512.peak / GIB:.3f}", f"{live.peak / GIB:.3f}", f"{peak / GIB:.3f}",
               f"{peak / cpu.peak:.3f}", ours[1], f"{f_cpu[0]:,}", f"{f_cuda[0]:,}", ours[2], f"{f_cpu[1]:,}",
               f"{f_cuda[1]:,}", f"{time.perf_counter() - t0:.1f}")
        print("| " + " | ".join(row) + " |", flush=True)
    print(f"total {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
