"""Measure the facts ``PEAK.md`` states about live memory in PyTorch's CPU step (tiny models, real tensors).

    .venv/bin/python -m tests.crosscheck.reference.peak_facts [section ...]

Sections: sdpa, autocast, dropout, layernorm, ledger, optimizer, families. Each prints what it saw;
PEAK.md quotes the output. Nothing here imports ``calculator``.
"""
from __future__ import annotations

import os
import sys
import warnings

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from ..peak_measure import LiveBytes, Step, backward_ledger, measure_peak, prepare, run_span

TINY_BERT = {"vocab_size": 50, "hidden_size": 8, "num_attention_heads": 2, "num_hidden_layers": 1,
             "intermediate_size": 12, "max_position_embeddings": 16, "type_vocab_size": 2}


class OpLog(TorchDispatchMode):
    """Every dispatched op with its outputs' shapes and dtypes."""

    def __init__(self):
        super().__init__()
        self.ops: list[tuple[str, list[tuple[tuple[int, ...], str]]]] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        flat, _ = tree_flatten(out)
        self.ops.append((str(func), [(tuple(t.shape), str(t.dtype).replace("torch.", ""))
                                     for t in flat if isinstance(t, torch.Tensor)]))
        return out


class WeightCasts(LiveBytes):
    """LiveBytes that also notes each ``_to_copy`` of a parameter (autocast's casts of weights), by phase."""

    def __init__(self, start, weights: dict[int, str]):
        super().__init__(start)
        self.weights = weights
        self.casts: list[tuple[str, str]] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if str(func) == "aten._to_copy.default" and args[0].untyped_storage().data_ptr() in self.weights:
            self.casts.append((self.phase, self.weights[args[0].untyped_storage().data_ptr()]))
        return super().__torch_dispatch__(func, types, args, kwargs)


def _forward_log(step: Step) -> OpLog:
    model, _hf, ids = prepare(step)
    log = OpLog()
    ctx = torch.autocast("cpu", dtype=torch.bfloat16) if step.autocast else torch.autocast("cpu", enabled=False)
    with warnings.catch_warnings(), log, ctx:
        warnings.simplefilter("ignore")
        out = model(input_ids=ids)
    del out
    return log


def sdpa() -> None:
    print("## SDPA on the CPU: the kernel and what it returns (BertModel, H=8, 2 heads of 4, B=2, L=5)")
    for autocast in (False, True):
        log = _forward_log(Step("bert", "BertModel", TINY_BERT, batch=2, seq_len=5, attention="sdpa",
                                autocast=autocast))
        for op, outs in log.ops:
            if "scaled_dot_product" in op or "attention" in op:
                print(f"autocast={autocast}: {op} -> {outs}")
    mb = {"vocab_size": 50, "hidden_size": 8, "num_attention_heads": 2, "num_hidden_layers": 6,
          "intermediate_size": 12, "pad_token_id": 0, "global_attn_every_n_layers": 3, "local_attention": 4}
    log = _forward_log(Step("modernbert", "ModernBertModel", mb, batch=2, seq_len=9, attention="sdpa"))
    print("ModernBERT, 6 layers (global every 3: layers 0 and 3), sliding window 4, B=2, L=9:")
    for op, outs in log.ops:
        if "scaled_dot_product" in op or op.startswith("aten.where"):
            print(f"  {op} -> {outs}")
    for dtype in ("fp32", "bf16"):
        step = Step("modernbert", "ModernBertModel", mb, batch=2, seq_len=9, attention="sdpa", dtype=dtype,
                    optimizer="sgd")
        model, _hf, ids = prepare(step)
        mode = LiveBytes([*model.parameters(), *model.buffers(), ids])
        run_span(step, model, ids, mode, [])
        end = mode.live_at(mode.phase_events["loss"])
        masks = [n for s, n in end.items() if mode.made_by[s] == "aten.where"]
        print(f"  {dtype}: float masks (aten.where) live at the forward's end: {masks}")
    step = Step("bert", "BertModel", TINY_BERT, batch=2, seq_len=5, attention="sdpa", optimizer="sgd")
    result = measure_peak(step)
    print("saved at the forward's end (sdpa):", sorted(n for name, n in result.at_peak if "flash" in name))


def autocast() -> None:
    print("## Autocast bf16 on the CPU: weight casts (tiny BERT, and ALBERT whose layers share one set of weights)")
    for model_type, arch, config in (
            ("bert", "BertModel", TINY_BERT),
            ("albert", "AlbertModel", {"vocab_size": 50, "embedding_size": 4, "hidden_size": 8,
                                       "num_attention_heads": 2, "num_hidden_layers": 3, "intermediate_size": 12,
                                       "max_position_embeddings": 16})):
        for ckpt in (False, "non-reentrant") if model_type == "bert" else (False,):
            step = Step(model_type, arch, config, batch=1, seq_len=4, autocast=True, optimizer="sgd",
                        checkpointing=ckpt)
            model, _hf, ids = prepare(step)
            weights = {p.untyped_storage().data_ptr(): n for n, p in model.named_parameters()}
            mode = WeightCasts([*model.parameters(), *model.buffers(), ids], weights)
            run_span(step, model, ids, mode, [])
            per_phase: dict[str, list[str]] = {}
            for phase, name in mode.casts:
                per_phase.setdefault(phase, []).append(name)
            print(f"{arch} checkpointing={ckpt}: casts of weights per phase:",
                  {k: len(v) for k, v in per_phase.items()},
                  f"distinct weights cast in the forward: {len(set(per_phase.get('forward', [])))}")
            live = mode.live_at(mode.phase_events["loss"])
            casts = {s: n for s, n in live.items() if mode.made_by[s] == "aten._to_copy"}
            print(f"  _to_copy outputs live at the forward's end: {len(casts)} storages, {sum(casts.values())} bytes;"
                  f" bf16 bytes of all 2-d weights: {sum(p.numel() * 2 for p in model.parameters() if p.dim() == 2)}")
    model, _hf, ids = prepare(Step("bert", "BertModel", TINY_BERT, autocast=True))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        torch.nn.functional.linear(torch.ones(1, 8), model.pooler.dense.weight)
        print("cache enabled:", torch.is_autocast_cache_enabled())


def dropout() -> None:
    print("## Dropout in train mode on the CPU (BertModel fp32 and bf16 cast)")
    for dtype in ("fp32", "bf16"):
        log = _forward_log(Step("bert", "BertModel", TINY_BERT, batch=1, seq_len=4, dtype=dtype))
        ops = [op for op, _ in log.ops]
        i = ops.index("aten.bernoulli_.float")
        print(dtype, [(op, outs) for op, outs in log.ops[i - 1:i + 3]])


def layernorm() -> None:
    print("## LayerNorm and softmax under CPU autocast (eager BERT)")
    log = _forward_log(Step("bert", "BertModel", TINY_BERT, batch=1, seq_len=4, autocast=True))
    for op, outs in log.ops:
        if any(k in op for k in ("layer_norm", "softmax", "addmm", "gelu", "_to_copy")):
            print(f"  {op} -> {outs}")


def ledger() -> None:
    print("## The backward node by node (BertModel eager fp32, B=1, L=4, SGD)")
    for row in backward_ledger(Step("bert", "BertModel", TINY_BERT, batch=1, seq_len=4, optimizer="sgd")):
        if row["allocated"] or row["freed_after"] or row["freed_inside"] or row["allocated_after"]:
            print(f"  {row['node']:34} live {row['live_before']:6} +{row['allocated']:5} -{row['freed_inside']:4}"
                  f" then -{row['freed_after']:5} +{row['allocated_after']}")


def optimizer() -> None:
    print("## The optimizer step's temporaries: for-loop (CPU default) vs foreach (CUDA default)")
    for opt in ("adamw", "sgd-momentum", "adafactor"):
        for foreach in (False, True):
            if opt == "adafactor" and foreach:
                continue
            step = Step("bert", "BertModel", TINY_BERT, optimizer=opt, foreach=foreach)
            r = measure_peak(step)
            temps = sorted((n for name, n in r.at_peak if name.startswith("act:")), reverse=True)
            print(f"  {opt} foreach={foreach}: peak {r.peak} in {r.phase} at {r.op}; temporaries at the peak "
                  f"{sum(temps)} {temps[:6]}; end {r.end}")


def families() -> None:
    print("## Where the training peak falls, full widths of base models on fake tensors (one step, AdamW)")
    from benchmarks.peak_figures import MODERNBERT_BASE
    base = {"vocab_size": 30522, "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
            "intermediate_size": 3072, "max_position_embeddings": 4098, "type_vocab_size": 2}
    deberta = {**base, "vocab_size": 128100, "type_vocab_size": 0, "relative_attention": True,
               "max_relative_positions": -1, "position_buckets": 256, "norm_rel_ebd": "layer_norm",
               "share_att_key": True, "pos_att_type": "p2c|c2p", "position_biased_input": False,
               "max_position_embeddings": 512}
    cases = [("bert", "BertForSequenceClassification", base, ("eager", "sdpa")),
             ("xlm-roberta", "XLMRobertaForSequenceClassification", {**base, "vocab_size": 250002,
                                                                      "pad_token_id": 1}, ("eager", "sdpa")),
             ("deberta-v2", "DebertaV2ForSequenceClassification", deberta, ("eager",)),
             ("modernbert", "ModernBertForSequenceClassification", MODERNBERT_BASE, ("eager", "sdpa")),
             # Longformer asks its data whether any token is global (``.item()``): fake tensors cannot answer,
             # so it runs on real tensors, narrowed (H 64, 4 heads, 2 layers, window 64) to stay cheap.
             ("longformer", "LongformerForSequenceClassification",
              {**base, "vocab_size": 1000, "pad_token_id": 1, "hidden_size": 64, "num_attention_heads": 4,
               "num_hidden_layers": 2, "intermediate_size": 256, "attention_window": 64}, ("eager",))]
    only = os.environ.get("PEAK_FAMILIES", "").split(",")
    for model_type, arch, config, attentions in cases:
        if only != [""] and model_type not in only:
            continue
        for attention in attentions:
            for batch, seq_len, precisions in ((8, 512, ("fp32", "autocast")), (1, 128, ("fp32",))):
                for precision in precisions:
                    step = Step(model_type, arch, config, batch=batch, seq_len=seq_len, attention=attention,
                                autocast=precision == "autocast")
                    r = measure_peak(step, fake=model_type != "longformer")
                    kinds = r.by_kind()
                    print(f"  {arch} {attention} B={batch} L={seq_len} {precision}: peak {r.peak} in {r.phase} "
                          f"({r.op}); forward end {r.phase_live['loss']}; activations at peak {kinds.get('act', 0)}")


SECTIONS = {"sdpa": sdpa, "autocast": autocast, "dropout": dropout, "layernorm": layernorm, "ledger": ledger,
            "optimizer": optimizer, "families": families}

if __name__ == "__main__":
    torch.set_num_threads(1)
    for name in sys.argv[1:] or list(SECTIONS):
        SECTIONS[name]()
        print()
