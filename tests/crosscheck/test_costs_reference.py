"""Cross-check the training-step costs (calculator/costs.py) against PyTorch itself, figure by figure.

Each case draws a tiny random config of a family the engine covers, a class (not
multiple choice: its inputs are [B, choices, L]), B, L, dtype, optimizer,
gradient checkpointing, and a plan: none, freezing, or LoRA. The PyTorch side
(``costs_measure``) builds the real transformers model on CPU, applies peft's
``get_peft_model`` (LoRA) or ``requires_grad_(False)`` (freezing) itself, runs one
step as issue 25 defines it and measures: FlopCounterMode's totals in the forward
and the backward, the parameters' bytes, the gradients', the optimizer state's
after one step, and the distinct storages ``saved_tensors_hooks`` sees in the
forward (parameters and buffers left out). Every figure must be equal.
"""
from __future__ import annotations

import os
import random
from typing import Any

import pytest

from calculator import costs, peft as planner
from calculator.build import build as engine_build
from calculator.errors import CalcError
from calculator.families import FAMILIES

from .costs_measure import freeze, lora, make_model, measure
from .test_transformers import random_config

pytest.importorskip("torch")

COVERED = tuple(mt for mt, f in FAMILIES.items() if f.costs is not None)
PER_FAMILY = int(os.environ.get("COSTS_RANDOM", "20"))
SEED = int(os.environ.get("CROSSCHECK_SEED", "20261125"))
TASK_TYPES = {"ForSequenceClassification": "SEQ_CLS", "ForTokenClassification": "TOKEN_CLS",
              "ForQuestionAnswering": "QUESTION_ANS"}


#: (hidden, heads, layers, feed-forward) config keys, where a family names them its own way.
KEYS = {
    "bert": ("hidden_size", "num_attention_heads", "num_hidden_layers", "intermediate_size"),
    "distilbert": ("dim", "n_heads", "n_layers", "hidden_dim"),
}


def adjust_big_bird(rng: random.Random, raw: dict[str, Any]) -> None:
    """A valid attention kind; now and then blocks so small that block_sparse runs at these L (a refusal).

    With block_size 1 and one random block transformers keeps block_sparse for L > 7;
    below that (and at every published block size, at these tiny L) it switches to full attention.
    Cross-attention needs is_decoder (BigBirdLayer refuses it otherwise).
    """
    if raw.get("attention_type") not in (None, "block_sparse", "original_full"):
        raw["attention_type"] = rng.choice(["block_sparse", "original_full"])
    if raw.get("add_cross_attention"):
        raw["is_decoder"] = True
    if rng.random() < 0.25:
        raw.update(attention_type="block_sparse", block_size=1, num_random_blocks=1)  # r = 0 crashes in torch
    raw["type_vocab_size"] = max(2, raw.get("type_vocab_size", 2))  # question answering makes type 1 itself


def adjust_longformer(rng: random.Random, raw: dict[str, Any]) -> None:
    """Tiny windows (one for all layers, or one per layer), mostly at least one layer.

    Per-layer windows of 4, 6 and 8 sometimes do not divide the padded length
    (transformers asserts: a refusal); a window of 2 and a layerless model cannot run (more).
    """
    layers = raw["num_hidden_layers"] = 0 if rng.random() < 0.08 else rng.randint(1, 3)
    if rng.random() < 0.7:
        raw["attention_window"] = 2 if rng.random() < 0.08 else rng.choice([4, 6, 8])
    else:
        raw["attention_window"] = [rng.choice([4, 4, 6, 8]) for _ in range(layers)]


#: Per-family tweaks of the draw (one function per family, see COSTS.md).
ADJUST = {"big_bird": adjust_big_bird, "longformer": adjust_longformer}


def draw_step_keys(rng: random.Random, family: Any, raw: dict[str, Any]) -> None:
    """The step's config keys (:attr:`CostModel.keys`), each left out (the default) or drawn: a dropout
    0 (no mask) or > 0 (a mask), None where it falls back to another key; an activation among those the
    simulator models. A key the program does not read is drawn too: the engine must refuse a value
    that does not cost as the default (``costs_step_value``)."""
    for spec in family.costs.keys:
        if rng.random() < 0.35:
            continue
        if spec.kind == "activation":
            raw[spec.key] = rng.choice(costs.Sim.ACTIVATIONS)
        else:
            raw[spec.key] = rng.choice([0.0, 0.0, 0.3] + ([None] if spec.fallback is not None else []))


def draw(rng: random.Random, model_type: str) -> dict[str, Any]:
    """A case the step can run: a config, class, pooler, settings and plan options."""
    family = FAMILIES[model_type]
    raw = random_config(rng, family)
    hidden, heads, layers, inner = KEYS.get(model_type, KEYS["bert"])
    if "type_vocab_size" in {f.key for f in family.fields}:
        raw["type_vocab_size"] = max(1, raw.get("type_vocab_size", 2))  # a [0, H] table cannot look up type 0
    raw["vocab_size"] = max(8, raw.get("vocab_size", 8) % 600)  # tiny: the step runs in milliseconds
    raw[inner] = raw.get(inner, 37) % 64 + 1
    if hidden not in raw:
        raw[heads] = 2
        raw[hidden] = 2 * rng.randint(1, 12)
    raw[hidden] = raw[heads] * max(1, min(raw[hidden] // raw[heads], 8))
    if model_type in ("electra", "albert"):
        raw["embedding_size"] = rng.choice([raw["hidden_size"], rng.randint(1, 16)])
    raw[layers] = rng.randint(0, 3)
    if model_type == "mpnet":  # compute_position_bias buckets with 32 whatever the config says
        raw["relative_attention_num_buckets"] = rng.randint(32, 40)
    ADJUST.get(model_type, lambda rng, raw: None)(rng, raw)
    draw_step_keys(rng, family, raw)
    arch = rng.choice([a for a in family.architectures if not a.name.endswith("ForMultipleChoice")])
    if arch.name.endswith("ForQuestionAnswering"):
        raw.pop("id2label", None)
        raw["num_labels"] = 2
    pooler = rng.choice([None, False]) if arch.pooler is None else None
    seq_len = rng.randint(1, 9)
    raw["max_position_embeddings"] = max(raw.get("max_position_embeddings", 0) % 40, seq_len + 2)
    case = {
        "raw": raw, "arch": arch.name, "pooler": pooler, "batch": rng.randint(1, 3), "seq_len": seq_len,
        "dtype": rng.choice(list(costs.DTYPES)), "optimizer": rng.choice(costs.OPTIMIZERS),
        "checkpointing": family.costs.checkpointing and rng.random() < 0.4, "plan": rng.choice(["none", "freeze", "lora"]),
    }
    task = next((t for suffix, t in TASK_TYPES.items() if arch.name.endswith(suffix)), None)
    blocks = raw.get("num_hidden_groups", 1) if model_type == "albert" else raw[layers]  # ALBERT: shared groups
    case["freeze"] = (rng.random() < 0.5, rng.randint(0, blocks), bool(arch.head) and rng.random() < 0.3)
    names = ["query", "key", "value", "dense", "all-linear"]
    case["lora"] = {
        "r": rng.randint(1, 4),
        "targets": "all-linear" if rng.random() < 0.2 else ",".join(rng.sample(names[:4], rng.randint(1, 3))),
        "bias": rng.choice(planner.BIAS_MODES),
        "task_type": task if task and rng.random() < 0.6 else None,
    }
    return case


def engine_side(case: dict[str, Any]) -> tuple[Any, Any, costs.Costs]:
    inv = engine_build(case["raw"], case["arch"], case["pooler"])
    plan = None
    if case["plan"] == "freeze":
        plan = planner.freeze(inv, *case["freeze"])
    elif case["plan"] == "lora":
        o = case["lora"]
        plan = planner.lora_from_text(inv, o["r"], o["targets"], o["bias"], o["task_type"])
    s = costs.settings(case["batch"], case["seq_len"], case["dtype"], case["optimizer"], case["checkpointing"])
    return inv, plan, costs.compute(inv, s, plan)


def torch_side(case: dict[str, Any], inv: Any, plan: Any) -> dict[str, int]:
    """One thread: these tensors are tiny, and worker threads only spin (three times the CPU time)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _torch_side(case, inv, plan)
    finally:
        torch.set_num_threads(threads)


def _torch_side(case: dict[str, Any], inv: Any, plan: Any) -> dict[str, int]:
    config = {k: v for k, v in case["raw"].items() if k not in ("model_type", "architectures")}
    model = make_model(inv.model_type, case["arch"], config, case["dtype"], case["pooler"])
    hf_model = model
    if case["plan"] == "freeze":
        freeze(model, *case["freeze"])
    elif case["plan"] == "lora":
        model = lora(model, plan.settings)
    return measure(model, hf_model, case["batch"], case["seq_len"], inv.config["vocab_size"], case["optimizer"],
                   case["checkpointing"])


def runs_block_sparse(case: dict[str, Any]) -> None:
    """The engine refused block-sparse attention: transformers must indeed keep it for this input length."""
    import torch

    config = {k: v for k, v in case["raw"].items() if k not in ("model_type", "architectures")}
    model = make_model("big_bird", case["arch"], config, case["dtype"], case["pooler"])
    with torch.no_grad():
        model(input_ids=torch.zeros((case["batch"], case["seq_len"]), dtype=torch.long))
    assert model.base_model.attention_type == "block_sparse", case


def _longformer(case: dict[str, Any]) -> tuple[Any, Any]:
    import torch

    config = {k: v for k, v in case["raw"].items() if k not in ("model_type", "architectures")}
    model = make_model("longformer", case["arch"], config, case["dtype"], case["pooler"])
    return model, torch.randint(3, case["raw"]["vocab_size"], (case["batch"], case["seq_len"]))


def longformer_fails(case: dict[str, Any]) -> None:
    """Refused because transformers cannot run it (a window that does not divide the padded length, no layers,
    question answering without its three separators in random ids): the forward must fail."""
    model, ids = _longformer(case)
    with pytest.raises((AssertionError, ValueError, RuntimeError)):
        model(input_ids=ids)


def not_modelled(case: dict[str, Any]) -> None:
    """Refused as a value the program does not read: the drawn config must indeed hold one that would not
    cost as the default (so the refusal is not a silent narrowing of what is covered)."""
    inv = engine_build(case["raw"], case["arch"], case["pooler"])
    off = [k.key for k in inv.family.costs.keys if not k.read
           and not k.same_step(costs.step_value(inv, k.key), k.default if k.default is not None
                               else costs.step_value(inv, k.fallback))]
    assert off, case


#: Refusals the draw may hit on purpose, each with what PyTorch must show for it to be right.
REFUSALS = {"costs_step_value": not_modelled, "costs_block_sparse": runs_block_sparse, "costs_longformer_window": longformer_fails,
            "costs_longformer_no_layers": longformer_fails,
            "costs_longformer_small_window": longformer_fails, "costs_data_dependent": longformer_fails}


def cases() -> list[tuple[str, int]]:
    return [(mt, i) for mt in COVERED for i in range(PER_FAMILY)]


@pytest.mark.parametrize(("model_type", "index"), cases())
def test_step_matches_pytorch(model_type: str, index: int) -> None:
    rng = random.Random(f"{SEED}-{model_type}-{index}")
    for _ in range(50):  # redraw the few plans the step cannot run (nothing trains, LoRA on nothing)
        case = draw(rng, model_type)
        try:
            inv, plan, got = engine_side(case)
        except CalcError as exc:
            if exc.code in REFUSALS:
                REFUSALS[exc.code](case)
                return
            if exc.code in ("costs_nothing_trainable", "lora_target_missing", "lora_target_saved",
                            "lora_targets_required", "lora_no_linear"):
                continue
            raise
        break
    else:
        pytest.fail("no runnable case drawn")
    expected = torch_side(case, inv, plan)
    figures = {
        "forward": got.forward, "backward": got.backward, "weights": got.weights, "gradients": got.gradients,
        "optimizer": got.optimizer, "activations": got.activations,
    }
    assert figures == expected, case


def test_every_covered_family_has_a_case() -> None:
    assert {"bert", "roberta", "xlm-roberta", "camembert", "electra", "ernie", "distilbert", "albert", "mpnet",
            "big_bird", "longformer"} <= set(COVERED)


def test_step_key_defaults_are_transformers() -> None:
    """Each declared step key's default is what the family's config class sets when the key is absent."""
    import transformers

    for mt in COVERED:
        cfg = transformers.AutoConfig.for_model(mt)
        for spec in FAMILIES[mt].costs.keys:
            assert getattr(cfg, spec.key) == spec.default, (mt, spec.key)
