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
    arch = rng.choice([a for a in family.architectures if not a.name.endswith("ForMultipleChoice")])
    if arch.name.endswith("ForQuestionAnswering"):
        raw.pop("id2label", None)
        raw["num_labels"] = 2
    pooler = rng.choice([None, False]) if arch.pooler is None else None
    seq_len = rng.randint(1, 9)
    raw["max_position_embeddings"] = max(raw.get("max_position_embeddings", 0) % 40, seq_len + 2)
    ADJUST.get(model_type, lambda rng, raw: None)(rng, raw)
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


def adjust_xmod(rng: random.Random, raw: dict[str, Any]) -> None:
    """X-MOD: valid adapter names (the refused ones are the parameter cross-check's); a default language
    (input_ids alone need one), now and then none or a missing one, or no layers: the engine refuses
    those as transformers does; the two adapter switches either way."""
    raw["languages"] = [name for name in raw.get("languages", ["en_XX"]) if name and "." not in name]
    if not raw["languages"] and rng.random() < 0.8:
        raw["languages"] = ["de_DE"]  # an X-MOD without adapters cannot run: kept now and then
    roll = rng.random()
    if roll < 0.04:
        raw.pop("default_language", None)
    elif roll < 0.07:
        raw["default_language"] = "xx_XX"
    else:
        raw["default_language"] = rng.choice(raw["languages"] or ["en_XX"])
    if raw["num_hidden_layers"] == 0 and rng.random() < 0.8:
        raw["num_hidden_layers"] = rng.randint(1, 3)
    for key in ("adapter_reuse_layer_norm", "ln_before_adapter"):
        if rng.random() < 0.5:
            raw[key] = rng.random() < 0.5


def adjust_roformer(rng: random.Random, raw: dict[str, Any]) -> None:
    """RoFormer: an even head size mostly (an odd one is refused, as transformers fails on it); rotary values
    either way."""
    if rng.random() < 0.9:
        heads = raw["num_attention_heads"]
        raw["hidden_size"] = heads * 2 * max(1, raw["hidden_size"] // heads // 2)
    if rng.random() < 0.5:
        raw["rotary_value"] = rng.random() < 0.5


def adjust_esm(rng: random.Random, raw: dict[str, Any]) -> None:
    """ESM: a padding id mostly (positions are computed from it; without one the step is refused, as
    transformers fails), room in the table for the positions that start after it; token dropout with its
    mask token (now and then without: refused); dropouts of 0 (ESM-2) or 0.1; an even head size mostly."""
    if rng.random() < 0.93:
        raw["pad_token_id"] = rng.randrange(min(raw["vocab_size"], 4))
        raw["max_position_embeddings"] += raw["pad_token_id"]
    else:
        raw.pop("pad_token_id", None)
    raw["token_dropout"] = rng.random() < 0.5
    if raw["token_dropout"] and rng.random() < 0.95:
        raw["mask_token_id"] = rng.randrange(raw["vocab_size"])
    for key in ("hidden_dropout_prob", "attention_probs_dropout_prob"):
        if rng.random() < 0.7:
            raw[key] = rng.choice([0.0, 0.1])
    if rng.random() < 0.9:
        heads = raw["num_attention_heads"]
        raw["hidden_size"] = heads * 2 * max(1, raw["hidden_size"] // heads // 2)


def adjust_nomic_bert(rng: random.Random, raw: dict[str, Any]) -> None:
    """Nomic BERT: head sizes the config accepts (the refused ones are the parameter cross-check's); now and
    then 3, whose rotation transformers cannot broadcast (refused)."""
    d = raw.get("head_dim")
    if d is not None and (d == 0 or (d > 4 and d % 2) or (d == 3 and rng.random() < 0.7)):
        raw["head_dim"] = 2 * rng.randint(1, 4)
    implied = raw["hidden_size"] // raw["num_attention_heads"]
    if raw.get("head_dim") is None and ((implied > 4 and implied % 2) or (implied == 3 and rng.random() < 0.7)):
        raw["hidden_size"] = raw["num_attention_heads"] * (implied + 1)


#: Per family, the draw's own tweaks (one function each, ``adjust_<model_type>``).
ADJUST = {"xmod": adjust_xmod, "roformer": adjust_roformer, "esm": adjust_esm, "nomic_bert": adjust_nomic_bert}
#: Refusals where transformers itself cannot run the step: the crosscheck asserts that it fails too.
REFUSED_BY_TORCH = {"costs_xmod_language": (ValueError,), "costs_xmod_no_layers": (IndexError,),
                    "costs_rotary_odd_head": (RuntimeError, ValueError), "costs_esm_padding": (TypeError,),
                    "costs_esm_mask_token": (AttributeError, TypeError)}


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
            if exc.code in ("costs_nothing_trainable", "lora_target_missing", "lora_target_saved",
                            "lora_targets_required", "lora_no_linear"):
                continue
            if exc.code in REFUSED_BY_TORCH:
                inv = engine_build(case["raw"], case["arch"], case["pooler"])
                with pytest.raises(REFUSED_BY_TORCH[exc.code]):
                    torch_side(dict(case, plan="none"), inv, None)
                return
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
            "megatron-bert", "xlm-roberta-xl", "xmod", "rembert", "roformer", "esm", "nomic_bert"} <= set(COVERED)
