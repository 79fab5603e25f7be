"""Cross-check the training-step costs (calculator/costs/) against PyTorch itself, figure by figure.

Each case draws a tiny random config of a family the engine covers, a class (not
multiple choice: its inputs are [B, choices, L]), B, L, dtype, optimizer,
gradient checkpointing (non-reentrant or reentrant), and a plan: none, freezing, or LoRA. The PyTorch side
(``costs_measure``) builds the real transformers model on CPU, applies peft's
``get_peft_model`` (LoRA) or ``requires_grad_(False)`` (freezing) itself, runs one
step as issue 25 defines it and measures: FlopCounterMode's totals in the forward
and the backward, the parameters' bytes, the gradients', the optimizer state's
after one step, and the distinct storages ``saved_tensors_hooks`` sees in the
forward (parameters and buffers left out). Every figure must be equal; when one is
not, the failure also prints the FLOPs module by module (the engine's tape against
``FlopCounterMode.get_flop_counts()``), so a mismatch names the module.
"""
from __future__ import annotations

import math
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
    "funnel": ("d_model", "n_head", "num_decoder_layers", "d_inner"),
    # XLM, FlauBERT: the feed-forward is 4·emb_dim (no key; the draw's value goes to a key nothing reads)
    "t5": ("d_model", "num_heads", "num_layers", "d_ff"),
    "mt5": ("d_model", "num_heads", "num_layers", "d_ff"),
    "umt5": ("d_model", "num_heads", "num_layers", "d_ff"),
    "xlm": ("emb_dim", "n_heads", "n_layers", "intermediate_size"),
    "flaubert": ("emb_dim", "n_heads", "n_layers", "intermediate_size"),
    "perceiver": ("d_latents", "num_self_attention_heads", "num_self_attends_per_block", "self_attention_widening_factor"),
}


def adjust_big_bird(rng: random.Random, raw: dict[str, Any]) -> None:
    """A valid attention kind; often blocks so small that block_sparse runs at tiny L (see :func:`big_bird_length`).

    Block sizes 1 to 3 and 1 to 3 random blocks: transformers keeps block_sparse for
    L > (5 + 2·r)·block_size, and pads L to a multiple of the block size (sizes 2 and 3
    make that happen). Cross-attention needs is_decoder (BigBirdLayer refuses it otherwise).
    """
    if raw.get("attention_type") not in (None, "block_sparse", "original_full"):
        raw["attention_type"] = rng.choice(["block_sparse", "original_full"])
    if rng.random() < 0.7:
        block = rng.choice([1, 2, 2, 3])
        rand = rng.choice([1, 2, 3][:4 - block])
        raw.update(attention_type="block_sparse", block_size=block, num_random_blocks=rand)
        if rng.random() < 0.8:
            raw["add_cross_attention"] = False  # with it, BigBirdModel switches to full attention
    if raw.get("add_cross_attention"):
        raw["is_decoder"] = True
    raw["type_vocab_size"] = max(2, raw.get("type_vocab_size", 2))  # question answering makes type 1 itself


def big_bird_length(rng: random.Random, raw: dict[str, Any]) -> int:
    """Mostly a length past the switch to full attention (block_sparse runs; with block sizes 2 and 3 often not
    a multiple of the block), now and then one at the switch or below (transformers runs full attention)."""
    if raw.get("attention_type", "block_sparse") != "block_sparse" or raw.get("block_size", 64) > 3:
        return rng.randint(1, 9)  # the published block sizes (16 to 64): full attention at these lengths
    limit = (5 + 2 * raw["num_random_blocks"]) * raw["block_size"]
    return rng.choice([rng.randint(limit + 1, limit + 3 * raw["block_size"])] * 4 + [rng.randint(limit - 2, limit)])


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


def adjust_mobilebert(rng: random.Random, raw: dict[str, Any]) -> None:
    """Widths that fit together, multiples of the head count (else the forward fails: refused, tested apart),
    that the common clamps in ``draw`` leave alone (H = A × at most 8); E ≤ H (the MLM head's [H − E, V]
    matrix), sometimes E = H (no projection without the trigram); at least one feed-forward network."""
    heads = raw["num_attention_heads"] = rng.choice([1, 2, 4])
    raw["hidden_size"] = heads * rng.randint(1, 8)
    raw["embedding_size"] = rng.choice([raw["hidden_size"], rng.randint(1, raw["hidden_size"])])
    raw["intra_bottleneck_size"] = heads * rng.randint(1, 4)
    bottleneck = raw.get("use_bottleneck", True)
    if bottleneck and not raw.get("use_bottleneck_attention", False) and not raw.get("key_query_shared_bottleneck", True):
        raw["intra_bottleneck_size"] = raw["hidden_size"]  # query and key read H, the residual B: W = H = B
    if "true_hidden_size" in raw:  # written, as published files have it: the width the layer's input has
        raw["true_hidden_size"] = raw["intra_bottleneck_size"] if bottleneck else raw["hidden_size"]
    raw["num_feedforward_networks"] = rng.randint(1, 4)


def adjust_squeezebert(rng: random.Random, raw: dict[str, Any]) -> None:
    """E = H (transformers asserts it) and channel counts every group count divides, chosen so that the
    common clamps in ``draw`` leave them alone (H = A × at most 8; I is written as 4k − 1, which
    ``% 64 + 1`` turns into 4k)."""
    heads = raw["num_attention_heads"] = rng.choice([1, 2, 4])
    raw["hidden_size"] = raw["embedding_size"] = heads * 4 * rng.randint(1, 2)
    raw["intermediate_size"] = 4 * rng.randint(1, 15) - 1


def adjust_convbert(rng: random.Random, raw: dict[str, Any]) -> None:
    """An odd kernel; H = 2·A'·d (A' = A // head_ratio kept heads) and widths the feed-forward groups
    divide (else the forward fails: refused, tested apart), chosen so that the common clamps in ``draw``
    leave them alone (H = A × at most 8; I written as G·k − 1, which ``% 64 + 1`` turns into G·k)."""
    raw["conv_kernel_size"] = rng.choice([1, 3, 5])
    heads = raw["num_attention_heads"] = rng.choice([1, 2, 4])
    ratio = raw["head_ratio"] = rng.randint(1, 3)
    groups = raw["num_groups"] = rng.choice([1, 1, 2])
    kept = max(heads // ratio, 1)
    unit = math.lcm(heads, 2 * kept * groups)
    raw["hidden_size"] = unit * rng.randint(1, max(1, heads * 8 // unit))
    raw["intermediate_size"] = groups * rng.randint(1, 12) - 1
    if rng.random() < 0.5:
        raw["embedding_size"] = raw["hidden_size"]


def adjust_funnel(rng: random.Random, raw: dict[str, Any]) -> None:
    """transformers' own key names (the family's sample uses HF's aliases now and then), an even width the
    common clamps keep, no empty block after the first (both refused, tested apart); sequences too short for
    the blocks' relative positions are refused and redrawn."""
    if "hidden_size" in raw:
        raw["d_model"] = raw.pop("hidden_size")
    raw["n_head"] = raw.pop("num_attention_heads", raw.get("n_head", 2)) or 1
    raw["d_model"] = raw["n_head"] * 2 * rng.randint(1, 4)  # even (odd: refused), kept by the common clamps
    blocks = raw.get("block_sizes", [4, 4, 4])
    blocks = raw["block_sizes"] = [blocks[0]] + [size or 1 for size in blocks[1:]]  # empty later blocks: refused
    if "block_repeats" in raw:
        raw["block_repeats"] = [rng.randint(1, 2) for _ in blocks]


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
    transformers fails), small enough for the positions that start after it; token dropout with its
    mask token (now and then without: refused); dropouts of 0 (ESM-2) or 0.1; an even head size mostly."""
    if rng.random() < 0.93:
        raw["pad_token_id"] = rng.randrange(2)  # 0 or 1 (ESM-2's): draw() leaves a table of L + 2 rows at least
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

def adjust_llama_style(rng: random.Random, raw: dict[str, Any]) -> None:
    """EuroBERT, UltraBERT, ESM C: K/V heads that divide the (redrawn) heads (ESM C: equal to them); mostly
    the implied head size, now and then a head_dim of its own; odd sizes now and then (refused on both sides)."""
    heads = raw["num_attention_heads"]
    if raw.get("model_type") == "esmc":
        raw["num_key_value_heads"] = heads
    elif "num_key_value_heads" in raw:
        raw["num_key_value_heads"] = rng.choice([k for k in range(1, heads + 1) if heads % k == 0])
    if "head_dim" in raw and rng.random() < 0.7:
        raw.pop("head_dim")
    elif "head_dim" in raw:
        raw["head_dim"] = rng.randint(1, 4) * 2
    implied = raw["hidden_size"] // heads
    if implied % 2 and (implied > 4 or (implied == 3 and rng.random() < 0.7)):  # 5, 7: refused by the config
        raw["hidden_size"] = heads * (implied + 1)
    if raw["model_type"] != "esmc" and (raw.get("pad_token_id", 1 << 20) or 0) >= raw["vocab_size"]:
        raw["pad_token_id"] = rng.randrange(raw["vocab_size"])  # the defaults (128001, 0) or a drawn one
    layers = raw.get("num_hidden_layers", 0)
    if "layer_types" in raw:  # UltraBERT: the kinds of the clamped depth, now and then all one kind
        one = rng.choice(["full_attention", "sliding_attention"]) if rng.random() < 0.3 else None
        raw["layer_types"] = [one or rng.choice(["full_attention", "sliding_attention"]) for _ in range(layers)]
    if "attention_windows" in raw:  # a legacy window per layer (0: full attention), often one within L
        raw["attention_windows"] = [rng.choice([0, rng.randint(1, 6)]) for _ in range(layers)]


def adjust_neomme(rng: random.Random, raw: dict[str, Any]) -> None:
    """NeoMME: at least one layer (the config refuses none), K/V heads that divide the heads, head sizes whose
    rotated widths are multiples of four (both refused by the config, tested by the parameter cross-check), layer
    kinds of the drawn length with a full-attention layer (one or several: the value embeddings' two layers),
    now and then other rotary factors."""
    layers = raw["num_hidden_layers"] = rng.randint(1, 3)
    kv = raw["num_key_value_heads"] = rng.randint(1, 3)
    raw["num_attention_heads"] = kv * rng.randint(1, 3)
    raw["hidden_size"] = raw["num_attention_heads"] * rng.randint(1, 4)
    raw["head_dim"] = rng.choice([16, 16, 32])
    raw.pop("layer_types", None)
    raw.pop("rope_parameters", None)
    raw.pop("per_layer_config", None)
    if rng.random() < 0.6:
        kinds = [rng.choice(["full_attention", "sliding_attention"]) for _ in range(layers)]
        kinds[rng.randrange(layers)] = "full_attention"
        raw["layer_types"] = kinds
    if rng.random() < 0.3:
        raw["rope_parameters"] = {"full_attention": {"rope_type": "default", "rope_theta": 10000.0,
                                                     "partial_rotary_factor": rng.choice([0.5, 1.0])},
                                  "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0,
                                                        "partial_rotary_factor": rng.choice([0.25, 0.5, 1.0])}}
    if rng.random() < 0.3:  # per_layer_config: each layer's window (a full layer's too: a sliding mask), the rest global
        kinds = raw.get("layer_types") or ["full_attention" if (i + 1) % 6 == 0 or i == layers - 1 else "sliding_attention"
                                           for i in range(layers)]  # NeoMMEConfig's default
        raw["per_layer_config"] = {str(i): {"sliding_window": rng.choice([None, rng.randint(1, 8)])
                                            if kind == "full_attention" else rng.randint(1, 8)}
                                   for i, kind in enumerate(kinds) if rng.random() < 0.6}


def adjust_deberta_v2(rng: random.Random, raw: dict[str, Any]) -> None:
    """Mostly configurations transformers runs (a published head width, pooler width, odd kernel, bucket count
    other than 1), now and then one its forward fails on (refused on both sides), and more relative attention."""
    if rng.random() < 0.85:
        raw.pop("attention_head_size", None)
    if rng.random() < 0.85:
        raw["pooler_hidden_size"] = raw["hidden_size"]
    if raw.get("conv_kernel_size", 0) % 2 == 0 and rng.random() < 0.85:
        raw["conv_kernel_size"] = rng.choice([0, 1, 3, 5])
    h = raw["hidden_size"]  # the draw resized it: a group count that divides it
    raw["conv_groups"] = rng.choice([g for g in range(1, h + 1) if h % g == 0])
    if raw.get("position_buckets") == 1 and rng.random() < 0.85:
        raw["position_buckets"] = rng.choice([-1, 2, 6])
    if not isinstance(raw.get("norm_rel_ebd", ""), str):
        raw["norm_rel_ebd"] = rng.choice(["none", "layer_norm"])
    if raw["num_hidden_layers"] == 0 and rng.random() < 0.85:  # no layers fails in transformers: refused
        raw["num_hidden_layers"] = rng.randint(1, 3)
    if rng.random() < 0.5:
        raw["relative_attention"] = True


def adjust_modernbert(rng: random.Random, raw: dict[str, Any]) -> None:
    """At least one layer (the config's RoPE set-up needs a kind per layer), kinds that fit the drawn count,
    a padding row inside the drawn vocabulary; now and then an odd head size (refused on both sides)."""
    layers = raw["num_hidden_layers"] = max(1, raw["num_hidden_layers"])
    if raw.get("global_attn_every_n_layers") == 0:
        raw["global_attn_every_n_layers"] = rng.choice([1, 2, 3])
    if "layer_types" in raw:
        raw["layer_types"] = [rng.choice(["full_attention", "sliding_attention"]) for _ in range(layers)]
    if "pad_token_id" not in raw or raw["pad_token_id"] is not None:  # HF's default, 50283, is no row here
        raw["pad_token_id"] = rng.randrange(raw["vocab_size"])
    heads = raw["num_attention_heads"]
    if (raw["hidden_size"] // heads) % 2 and rng.random() < 0.85:
        raw["hidden_size"] = heads * 2 * rng.randint(1, 4)


def adjust_composite(adjust: Any, text_type: str) -> Any:
    """ModernVBERT, UltraVBERT: the common clamps of ``draw`` applied inside ``text_config`` (the text encoder's
    keys live there; the ones ``draw`` wrote at the top level are removed, transformers would only keep them as
    attributes), then the text family's own tweaks (``adjust``)."""

    def run(rng: random.Random, raw: dict[str, Any]) -> None:
        for key in ("vocab_size", "intermediate_size", "hidden_size", "num_attention_heads", "num_hidden_layers"):
            raw.pop(key, None)
        text = raw["text_config"]
        text["vocab_size"] = max(8, text.get("vocab_size", 8) % 600)
        text["intermediate_size"] = text.get("intermediate_size", 37) % 64 + 1
        if "hidden_size" not in text or "num_attention_heads" not in text:
            text["num_attention_heads"] = 2
            text["hidden_size"] = 2 * rng.randint(1, 12)
        text["hidden_size"] = text["num_attention_heads"] * max(1, min(text["hidden_size"] // text["num_attention_heads"], 8))
        text["num_hidden_layers"] = rng.randint(0, 3)
        text["model_type"] = text_type
        adjust(rng, text)

    return run


def adjust_deberta(rng: random.Random, raw: dict[str, Any]) -> None:
    """Mostly a ContextPooler as wide as H (another width fails in transformers: refused), more relative attention."""
    if rng.random() < 0.85:
        raw["pooler_hidden_size"] = raw["hidden_size"]
    if rng.random() < 0.5:
        raw["relative_attention"] = True


def adjust_xlm(rng: random.Random, raw: dict[str, Any]) -> None:
    """XLM, FlauBERT: adaptive-softmax cutoffs inside the vocabulary the draw shrank (the LM class then fails in
    transformers' forward: refused, checked); FlauBERT's pre_norm now and then (its forward fails: refused)."""
    if raw.get("asm"):  # without cutoffs transformers cannot build the LM class at all (the parameter check's)
        raw["asm_cutoffs"] = sorted(rng.sample(range(1, raw["vocab_size"] - 1), rng.randint(1, 2)))
        raw.setdefault("asm_div_value", 2.0)
    if raw["model_type"] == "flaubert":
        raw["pre_norm"] = rng.random() < 0.1
        if rng.random() < 0.1:
            raw["layerdrop"] = 0.2


def adjust_t5(rng: random.Random, raw: dict[str, Any]) -> None:
    """T5's encoders: feed-forward kinds whose activation the step models (the others are refused); the
    config's own is_gated_act and dense_act_fn now and then, as saved configs carry them."""
    raw["feed_forward_proj"] = rng.choice(["relu", "gated-gelu", "gelu", "gelu_new", "gated-relu", "gated-gelu_new"])
    if rng.random() < 0.2:
        raw["dense_act_fn"] = rng.choice(["gelu", "gelu_new", "relu", "gelu_pytorch_tanh"])
    # fewer than 4 buckets divide by zero in transformers' bucketing (refused, checked)
    raw["relative_attention_num_buckets"] = rng.randint(1, 3) if rng.random() < 0.1 else rng.randint(4, 40)
    if rng.random() < 0.3:  # above buckets // 4 (max_exact): at or below it the bucketing takes log(1) / 0
        raw["relative_attention_max_distance"] = raw["relative_attention_num_buckets"] // 4 + rng.randint(1, 20)


def adjust_nystromformer(rng: random.Random, raw: dict[str, Any]) -> None:
    """Nyströmformer: mostly an odd convolution kernel (an even one fails in transformers: refused); the Nyström
    path more than half the time, with landmarks and a segment length the drawn L can match (the defaults, 64
    and 64, are softmax attention over every key), now and then as many landmarks as positions."""
    if raw.get("conv_kernel_size", 1) % 2 == 0 and rng.random() < 0.8:
        raw["conv_kernel_size"] = rng.choice([1, 3, 5])
    roll = rng.random()
    if roll < 0.6:
        m = raw["num_landmarks"] = rng.randint(1, 4)
        raw["segment_means_seq_len"] = rng.randint(m + 1, 9)
    elif roll < 0.75:
        raw["num_landmarks"] = raw["segment_means_seq_len"] = rng.randint(1, 9)


def adjust_perceiver(rng: random.Random, raw: dict[str, Any]) -> None:
    """Perceiver: widths every head count divides (d_latents by both, d_model by the MLM decoder's 8), small MLP
    widenings, one or two blocks; the channels mostly from the widths, now and then Q/K channels of their own
    with values d_latents wide, now and then values of another width (a self-attention layer then fails in
    transformers: refused, checked)."""
    self_heads, cross_heads = rng.choice([1, 2, 4]), rng.choice([1, 2, 4])
    raw.update(num_self_attention_heads=self_heads, num_cross_attention_heads=cross_heads,
               d_latents=4 * rng.randint(1, 4), d_model=8 * rng.randint(1, 2), num_latents=rng.randint(1, 5),
               num_blocks=rng.randint(1, 2), self_attention_widening_factor=rng.randint(1, 3),
               cross_attention_widening_factor=rng.randint(1, 3))
    roll = rng.random()
    if roll < 0.7:
        raw["qk_channels"] = raw["v_channels"] = None
    elif roll < 0.9:
        raw["qk_channels"], raw["v_channels"] = 4 * rng.randint(1, 4), raw["d_latents"]
    else:
        raw["qk_channels"], raw["v_channels"] = 4 * rng.randint(1, 4), 4 * rng.randint(1, 4)


def adjust_yoso(rng: random.Random, raw: dict[str, Any]) -> None:
    """YOSO: mostly an odd convolution window when there is one (an even one fails in transformers: refused);
    now and then use_expectation off, whose LSH kernels a CPU does not have (refused: transformers fails)."""
    if raw.get("conv_window") is not None and raw["conv_window"] % 2 == 0 and rng.random() < 0.8:
        raw["conv_window"] = rng.choice([1, 3, 5])
    if rng.random() < 0.1:
        raw["use_expectation"] = False


def adjust_reformer(rng: random.Random, raw: dict[str, Any]) -> None:
    """Reformer: a length its training forward takes (the product of the axial shape, or any with a flat table),
    written into the config as ``_length`` for :func:`reformer_length`; chunk lengths that divide it (or equal
    it: every query attends every key), chunks before and after, hashing rounds, buckets (null: set from L) of
    each kind; the layers ``attn_layers`` names; H the sum of the axial widths."""
    raw["num_hidden_layers"] = len(raw.setdefault("attn_layers", ["lsh", "local"]))
    raw.update(num_attention_heads=rng.randint(1, 3), attention_head_size=rng.randint(1, 4),
               feed_forward_size=rng.randint(1, 12))
    if raw.get("axial_pos_embds", True):
        axes = rng.choice([1, 2, 2, 2, 3])
        shape = [rng.randint(1, 3) for _ in range(axes)]
        dims = [rng.randint(1, 4) for _ in range(rng.randint(1, axes))]
        raw.update(axial_pos_shape=shape, axial_pos_embds_dim=dims, hidden_size=sum(dims))
        length = math.prod(shape)
    else:
        raw["hidden_size"] = rng.randint(1, 8)
        length = rng.randint(1, 9)
    divisors = [k for k in range(1, length + 1) if length % k == 0]
    if rng.random() < 0.2:  # both chunks at least L: every query attends every key, whatever their lcm
        raw["lsh_attn_chunk_length"], raw["local_attn_chunk_length"] = length + rng.randint(0, 3), length + rng.randint(0, 3)
    else:
        raw["lsh_attn_chunk_length"], raw["local_attn_chunk_length"] = rng.choice(divisors), rng.choice(divisors)
    raw["lsh_num_chunks_before"], raw["local_num_chunks_before"] = rng.randint(0, 2), rng.randint(0, 2)
    raw["lsh_num_chunks_after"], raw["local_num_chunks_after"] = rng.randint(0, 1), rng.randint(0, 1)
    raw["num_hashes"] = rng.randint(1, 3)
    raw["num_buckets"] = rng.choice([None, 2, 4, [2, 2]])
    raw["_length"] = length


def reformer_arch(rng: random.Random, raw: dict[str, Any], architecture: str) -> None:
    """The causal LM class looks at no chunk after the current one (transformers asserts it)."""
    if raw.get("is_decoder"):
        raw["lsh_num_chunks_after"] = raw["local_num_chunks_after"] = 0


def reformer_length(rng: random.Random, raw: dict[str, Any]) -> int:
    return raw.pop("_length")


def nystromformer_length(rng: random.Random, raw: dict[str, Any]) -> int:
    """On the Nyström path mostly the length the landmarks assume, m·⌊S/m⌋ (another is refused: checked)."""
    m, s = raw.get("num_landmarks", 64), raw.get("segment_means_seq_len", 64)
    if m != s and rng.random() < 0.85:
        return m * (s // m)
    return rng.randint(1, 9)


#: Per family, its own tweaks of the drawn config (after the common ones).
#: Per family, its own tweaks of the drawn config: before the common clamps of ``draw`` (which they are
#: chosen to survive), or after them (tweaks the clamps would undo).
def heads_for_the_draw(rng: random.Random, raw: dict[str, Any]) -> None:
    """FNet has no attention: one head while the draw sizes H as heads × width, removed again after."""
    raw["num_attention_heads"] = 1


def no_heads(rng: random.Random, raw: dict[str, Any]) -> None:
    raw.pop("num_attention_heads", None)


ADJUST_BEFORE = {"mobilebert": adjust_mobilebert, "squeezebert": adjust_squeezebert,
                 "convbert": adjust_convbert, "funnel": adjust_funnel, "fnet": heads_for_the_draw,
                 "reformer": lambda rng, raw: raw.setdefault("num_attention_heads", 1),
                 **{mt: lambda rng, raw: raw.setdefault("num_heads", rng.randint(1, 4)) for mt in ("t5", "mt5", "umt5")}}
# Perceiver's draw may leave its self-attention heads to the default (8) while naming d_latents: draw's width rule
# reads them (adjust_perceiver draws them again after); no random number used, so every other draw is unchanged.
ADJUST_BEFORE["perceiver"] = lambda rng, raw: raw.setdefault("num_self_attention_heads", 8)
ADJUST = {"big_bird": adjust_big_bird, "longformer": adjust_longformer, "deberta-v2": adjust_deberta_v2,
          "modernbert": adjust_modernbert, "deberta": adjust_deberta, "xmod": adjust_xmod,
          "roformer": adjust_roformer, "esm": adjust_esm, "nomic_bert": adjust_nomic_bert,
          "xlm": adjust_xlm, "flaubert": adjust_xlm, "t5": adjust_t5, "mt5": adjust_t5, "umt5": adjust_t5,
          "esmc": adjust_llama_style, "eurobert": adjust_llama_style, "ultrabert": adjust_llama_style,
          "fnet": no_heads, "nystromformer": adjust_nystromformer,
          "perceiver": adjust_perceiver, "yoso": adjust_yoso, "reformer": adjust_reformer,
          "modernvbert": adjust_composite(adjust_modernbert, "modernbert"),
          "ultravbert": adjust_composite(adjust_llama_style, "ultrabert"),
          "neomme": adjust_neomme}

#: A family's own draw of the sequence length (BigBird's block-sparse attention runs only past a length).
SEQ_LEN = {"big_bird": big_bird_length, "nystromformer": nystromformer_length, "reformer": reformer_length}
#: A family's own tweaks once the class is drawn (after ``arch.requires``, e.g. Reformer's is_decoder).
ARCH_ADJUST = {"reformer": reformer_arch}

#: Refusals of configurations transformers' own step fails on: the cross-check asserts PyTorch fails too.
FAILS_IN_TORCH = ("costs_forward_fails", "costs_checkpointing_fails")


def draw_step_keys(rng: random.Random, family: Any, raw: dict[str, Any]) -> None:
    """The step's config keys (:attr:`CostModel.keys`), each left out (the default) or drawn: a dropout
    0 (no mask) or > 0 (a mask), None where it falls back to another key; an activation among those the
    simulator models. A key the program does not read is drawn too: the engine must refuse a value
    that does not cost as the default (``costs_step_value``)."""
    for spec in family.costs.keys:
        # A composite's text_config keys (ModernVBERT's) are drawn where config.json nests them.
        where, name = (raw.setdefault(spec.nested[0], {}), spec.nested[1]) if spec.nested else (raw, spec.key)
        if spec.kind == "size":  # ModernBERT's local_attention: a window the drawn L (≤ 9) reaches or not, drawn
            own = random.Random(f"{spec.key}-{sorted(map(str, where.items()))}")  # apart: the other draws stay as they were
            if own.random() < 0.65:
                where[name] = own.choice([2, 4, 6, 8, 12, 16, spec.default])
            continue
        if rng.random() < 0.35:
            continue
        if spec.kind == "activation":
            where[name] = rng.choice(costs.Sim.ACTIVATIONS)
        elif spec.kind == "flag":  # TAPAS's reset_position_index_per_cell
            where[name] = rng.random() < 0.5
        else:
            where[name] = rng.choice([0.0, 0.0, 0.3] + ([None] if spec.fallback is not None else []))


def draw(rng: random.Random, model_type: str) -> dict[str, Any]:
    """A case the step can run: a config, class, pooler, settings and plan options."""
    family = FAMILIES[model_type]
    raw = random_config(rng, family)
    ADJUST_BEFORE.get(model_type, lambda rng, raw: None)(rng, raw)
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
    arch = rng.choice([a for a in family.architectures if not a.name.endswith("ForMultipleChoice")
                       and (family.costs.architectures is None or a.name in family.costs.architectures)])
    if arch.name.endswith(("ForQuestionAnswering", "ForQuestionAnsweringSimple")):
        raw.pop("id2label", None)
        raw["num_labels"] = 2
    raw.update(arch.requires)  # a class that needs a value (ReformerModelWithLMHead: is_decoder)
    ARCH_ADJUST.get(model_type, lambda rng, raw, name: None)(rng, raw, arch.name)
    pooler = rng.choice([None, False]) if arch.pooler is None else None
    seq_len = SEQ_LEN.get(model_type, lambda rng, raw: rng.randint(1, 9))(rng, raw)
    raw["max_position_embeddings"] = max(raw.get("max_position_embeddings", 0) % 40, seq_len + 2)
    case = {
        "raw": raw, "arch": arch.name, "pooler": pooler, "batch": rng.randint(1, 3), "seq_len": seq_len,
        "dtype": rng.choice(list(costs.DTYPES)), "optimizer": rng.choice(costs.OPTIMIZERS),
        "checkpointing": family.costs.checkpointing and rng.random() < 0.4, "plan": rng.choice(["none", "freeze", "lora"]),
    }
    task = next((t for suffix, t in TASK_TYPES.items() if arch.name.endswith(suffix)), None)
    blocks = raw.get("num_hidden_groups", 1) if model_type == "albert" else raw.get(layers, 0)  # ALBERT: shared groups
    if "text_config" in raw:  # ModernVBERT, UltraVBERT: the text encoder's layers
        blocks = raw["text_config"]["num_hidden_layers"]
    case["freeze"] = (rng.random() < 0.5, rng.randint(0, blocks), bool(arch.head) and rng.random() < 0.3)
    names = ["query", "key", "value", "dense", "all-linear"]
    case["lora"] = {
        "r": rng.randint(1, 4),
        "targets": "all-linear" if rng.random() < 0.2 else ",".join(rng.sample(names[:4], rng.randint(1, 3))),
        "bias": rng.choice(planner.BIAS_MODES),
        "task_type": task if task and rng.random() < 0.6 else None,
    }
    return case


#: Refusals where transformers itself cannot run the step: the crosscheck asserts that it fails too.
REFUSED_BY_TORCH = {"costs_xmod_language": (ValueError,), "costs_xmod_no_layers": (IndexError,),
                    "costs_rotary_odd_head": (RuntimeError, ValueError),
                    "costs_esmc_head_dim": (RuntimeError,), "costs_kv_heads": (RuntimeError,), "costs_esm_padding": (TypeError,),
                    "costs_esm_mask_token": (AttributeError, TypeError)}


def planned(case: dict[str, Any]) -> tuple[Any, Any]:
    """The inventory and the planner's plan (None, freezing or LoRA) of a case."""
    inv = engine_build(case["raw"], case["arch"], case["pooler"])
    plan = None
    if case["plan"] == "freeze":
        plan = planner.freeze(inv, *case["freeze"])
    elif case["plan"] == "lora":
        o = case["lora"]
        plan = planner.lora_from_text(inv, o["r"], o["targets"], o["bias"], o["task_type"])
    return inv, plan


def engine_side(case: dict[str, Any]) -> tuple[Any, Any, costs.Costs]:
    inv, plan = planned(case)
    # Checkpointing both ways: use_reentrant=True unless the case says otherwise (the reference's draws).
    mode = case["checkpointing"] and ("reentrant" if case.get("reentrant", True) else "non-reentrant")
    s = costs.settings(case["batch"], case["seq_len"], case["dtype"], case["optimizer"], mode)
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
    return measure(model, hf_model, case["batch"], case["seq_len"], vocab_of(inv), case["optimizer"],
                   case["checkpointing"], case.get("reentrant", True))


def vocab_of(inv: Any) -> int:
    """The token table's rows: the config's, or a composite's text encoder's (ModernVBERT, UltraVBERT)."""
    return inv.config["vocab_size"] if "vocab_size" in inv.config else inv.config["text_vocab_size"]


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


def nystrom_length_refused(case: dict[str, Any]) -> None:
    """Refused at a length other than the landmarks' m·⌊S/m⌋: PyTorch's step fails there (the landmarks' reshape
    or a broadcast), or runs something else: an output batch of another size, or sequence 0's output changed
    by a change to another sequence of the batch (the landmarks averaged across sequences)."""
    import torch

    raw, b, n = case["raw"], case["batch"], case["seq_len"]
    config = {k: v for k, v in raw.items() if k not in ("model_type", "architectures")}
    model = make_model("nystromformer", "NystromformerModel", config, "fp32")
    model.eval()
    ids = torch.randint(0, raw["vocab_size"], (b, n))
    try:
        with torch.no_grad():
            out = model(input_ids=ids).last_hidden_state
    except RuntimeError:
        return
    if out.shape[0] != b:
        return
    assert b > 1, case
    other = ids.clone()
    other[1:] = (other[1:] + 1) % raw["vocab_size"]
    with torch.no_grad():
        changed = model(input_ids=other).last_hidden_state
    assert not torch.allclose(out[0], changed[0]), case


#: Refusals the draw may hit on purpose, each with what PyTorch must show for it to be right.
REFUSALS = {"costs_step_value": not_modelled, "costs_longformer_window": longformer_fails,
            "costs_longformer_no_layers": longformer_fails, "costs_longformer_small_window": longformer_fails,
            "costs_data_dependent": longformer_fails, "costs_nystrom_length": nystrom_length_refused}


def cases() -> list[tuple[str, int]]:
    return [(mt, i) for mt in COVERED for i in range(PER_FAMILY)]


@pytest.mark.parametrize(("model_type", "index"), cases())
def test_step_matches_pytorch(model_type: str, index: int) -> None:
    rng = random.Random(f"{SEED}-{model_type}-{index}")
    for _ in range(50):  # redraw the few plans the step cannot run (nothing trains, LoRA on nothing)
        case = draw(rng, model_type)
        # Checkpointing of both kinds, half the draws each (by index: the draws themselves stay as they were):
        # even indices non-reentrant, transformers 5.23's default; odd ones reentrant (DeBERTa's refusal).
        case["reentrant"] = index % 2 == 1
        try:
            inv, plan, got = engine_side(case)
        except CalcError as exc:
            if exc.code in REFUSALS:
                REFUSALS[exc.code](case)
                return
            if exc.code in ("costs_nothing_trainable", "lora_target_missing", "lora_target_saved",
                            "lora_targets_required", "lora_no_linear", "lora_conv_groups",
                            "lora_target_unsupported", "freeze_layers", "costs_funnel_short"):
                continue
            if exc.code in REFUSED_BY_TORCH:  # transformers fails too (its own error): check, then redraw
                with pytest.raises(REFUSED_BY_TORCH[exc.code]):
                    torch_side(case, *planned(case))
                continue
            if exc.code in FAILS_IN_TORCH:  # refused because PyTorch fails: check that it does, then redraw
                # IndexError: TAPAS's token-type table of 0 rows, which the step's type 0 cannot look up
                # AttributeError: YOSO's LSH path calls CUDA kernels a CPU never loaded (None)
                with pytest.raises((RuntimeError, ZeroDivisionError, UnboundLocalError, TypeError, IndexError,
                                    AttributeError)):
                    torch_side(case, *planned(case))
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
    assert figures == expected, (case, by_module(case, inv, plan))


@pytest.mark.parametrize("model_type", [mt for mt in COVERED if FAMILIES[mt].costs.checkpointing])
def test_non_reentrant_checkpointing_matches_pytorch(model_type: str) -> None:
    """Issue 35 H3: transformers 5.23 checkpoints non-reentrant by default. The engine's checkpointed step
    must give every figure PyTorch measures with use_reentrant=False: the block's input kept as reentrant keeps
    it, and the recomputation stopped at the pack of the last tensor the block saves (torch.utils.checkpoint's
    early stop counts packs; a product packs its inputs before it runs, so a block that ends in one, as
    XLM-R XL's and ModernBERT's pre-LayerNorm layers do, does not run that product again). DeBERTa's shared
    LayerNorm, refused under reentrant checkpointing, trains here."""
    import torch

    rng = random.Random(f"{SEED}-{model_type}-non-reentrant")
    for _ in range(50):
        case = draw(rng, model_type)
        case["checkpointing"], case["reentrant"] = True, False
        try:
            inv, plan, got = engine_side(case)
        except CalcError:
            continue  # every refusal is checked against PyTorch by test_step_matches_pytorch
        break
    else:
        pytest.fail("no runnable case drawn")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        expected = _torch_side(case, inv, plan)
    finally:
        torch.set_num_threads(threads)
    figures = {
        "forward": got.forward, "backward": got.backward, "weights": got.weights, "gradients": got.gradients,
        "optimizer": got.optimizer, "activations": got.activations,
    }
    assert figures == expected, case


def forward_by_module(case: dict[str, Any], inv: Any, plan: Any) -> list[tuple[str, int, int | None]]:
    """(module, the engine's forward FLOPs, FlopCounterMode's) for every module whose call the engine's tape
    names with FLOPs: the tape's rows summed by module, against ``get_flop_counts()`` of the module of that
    name (its key is the root class's name, then peft's ``base_model.model.`` under LoRA, then the inventory
    name; peft's LoRA wrapper holds its adapters' products as the tape does). Forward only: the module
    tracker's forward attribution is exact, its backward's is not (an input's gradient can land on the module
    whose hook ran last), and it can fail under checkpointing, so both sides run without it. Operations a
    program runs between modules (attention's products) are under "" against None: FlopCounterMode gives them
    to the enclosing module."""
    import torch

    from .costs_measure import flop_counter

    s = costs.settings(case["batch"], case["seq_len"], case["dtype"], case["optimizer"], False)
    sim, _ = costs.simulate(inv, s, plan)
    ours: dict[str, int] = {}
    for row in sim.tape:
        ours[row.module] = ours.get(row.module, 0) + row.forward
    config = {k: v for k, v in case["raw"].items() if k not in ("model_type", "architectures")}
    model = make_model(inv.model_type, case["arch"], config, case["dtype"], case["pooler"])
    if case["plan"] == "freeze":
        freeze(model, *case["freeze"])
    elif case["plan"] == "lora":
        model = lora(model, plan.settings)
    counter = flop_counter(False)  # the module tracker on
    with counter:
        model(input_ids=torch.randint(0, vocab_of(inv), (case["batch"], case["seq_len"])))
    theirs: dict[str, int] = {}
    for key, ops in counter.get_flop_counts().items():
        name = key.split(".", 1)[1] if "." in key else ""
        theirs[name.removeprefix("base_model.model.")] = sum(ops.values())
    return [(name, value, theirs.get(name) if name else None) for name, value in ours.items() if value]


def by_module(case: dict[str, Any], inv: Any, plan: Any) -> str:
    """A failed case's diagnostic: :func:`forward_by_module`, the differing modules first."""
    try:
        rows = forward_by_module(case, inv, plan)
    except Exception as exc:  # a diagnostic must not hide the failure it explains
        return f"per-module FLOPs unavailable: {exc!r}"
    rows.sort(key=lambda row: row[1] == row[2])
    return "\n".join(f"{name or '(between modules)'}: engine {ours:,}, FlopCounterMode "
                      + ("?" if theirs is None else f"{theirs:,}") for name, ours, theirs in rows)


#: Families whose forward FlopCounterMode's module tracker cannot follow: Reformer's reversible layers run
#: inside a custom autograd Function ("Expected gradient function to be set"); their totals are checked above.
NO_MODULE_TRACKER = ("reformer",)


@pytest.mark.parametrize("model_type", [mt for mt in COVERED if mt not in NO_MODULE_TRACKER])
def test_forward_by_module_matches_pytorch(model_type: str) -> None:
    """Each module the engine's tape names costs, in the forward, what FlopCounterMode gives that module:
    the figures agree where they are made, not only in total (one random step per family)."""
    rng = random.Random(f"{SEED}-{model_type}-by-module")
    for _ in range(50):  # redraw a step the engine refuses, or one with no module's product (no layers, no head)
        case = draw(rng, model_type)
        try:
            inv, plan, _ = engine_side(case)
        except CalcError:
            continue
        named = [row for row in forward_by_module(case, inv, plan) if row[0]]
        if named:
            break
    else:
        pytest.fail("no runnable case drawn")
    assert [row for row in named if row[1] != row[2]] == [], case


def test_every_covered_family_has_a_case() -> None:
    assert {"bert", "roberta", "xlm-roberta", "camembert", "electra", "ernie", "distilbert", "albert", "mpnet",
            "megatron-bert", "xlm-roberta-xl", "xmod", "rembert", "roformer", "esm", "nomic_bert",
            "big_bird", "longformer", "mobilebert", "squeezebert", "convbert", "funnel", "deberta", "deberta-v2",
            "modernbert", "roberta-prelayernorm"} <= set(COVERED)


#: A tiny BigBird whose block-sparse attention runs past (5 + 2·1)·2 = 14 tokens.
TINY_BIG_BIRD = {"model_type": "big_bird", "vocab_size": 40, "hidden_size": 8, "num_attention_heads": 2,
                 "num_hidden_layers": 2, "intermediate_size": 12, "max_position_embeddings": 40, "block_size": 2,
                 "num_random_blocks": 1, "type_vocab_size": 2}


def test_big_bird_block_sparse_every_class() -> None:
    """Every class the step runs, block-sparse at a length padded from 17 to 18, in turn with bf16,
    checkpointing, LoRA on the attention and freezing (the random draws reach each only now and then)."""
    options = [("bf16", True, "lora"), ("fp32", False, "freeze"), ("bf16", False, "none"), ("fp32", True, "lora")]
    archs = [a.name for a in FAMILIES["big_bird"].architectures if not a.name.endswith("ForMultipleChoice")]
    for n, arch in enumerate(archs):
        dtype, checkpointing, plan = options[n % len(options)]
        case = {"raw": dict(TINY_BIG_BIRD), "arch": arch, "pooler": None, "batch": 2, "seq_len": 17,
                "dtype": dtype, "optimizer": costs.OPTIMIZERS[n % 4], "checkpointing": checkpointing, "plan": plan,
                "freeze": (True, 1, False), "lora": {"r": 2, "targets": "query,value,dense", "bias": "none",
                                                    "task_type": None}}
        inv, plan_, got = engine_side(case)
        figures = {"forward": got.forward, "backward": got.backward, "weights": got.weights,
                   "gradients": got.gradients, "optimizer": got.optimizer, "activations": got.activations}
        assert figures == torch_side(case, inv, plan_), arch


def test_big_bird_padding_past_the_position_table_fails_in_pytorch() -> None:
    """L = 17 fits 17 positions, but block-sparse pads it to 18: refused, and transformers fails too."""
    import torch

    raw = dict(TINY_BIG_BIRD, max_position_embeddings=17)
    inv = engine_build(raw, "BigBirdModel", None)
    with pytest.raises(CalcError) as caught:
        costs.compute(inv, costs.settings(2, 17))
    assert caught.value.code == "costs_block_padding"
    assert costs.compute(inv, costs.settings(2, 16)).forward > 0
    model = make_model("big_bird", "BigBirdModel", {k: v for k, v in raw.items() if k != "model_type"}, "fp32")
    with pytest.raises(RuntimeError):
        model(input_ids=torch.zeros((2, 17), dtype=torch.long))
    model(input_ids=torch.zeros((2, 16), dtype=torch.long))


def test_big_bird_draws_run_block_sparse_where_the_engine_says() -> None:
    """The draws reach the block-sparse kernel (a quarter of them at least, with layers), and the engine's
    switch is transformers' own: after a forward at the limit, one past it, and past it with cross-attention
    or without layers, the model's attention type is the one the engine worked out with."""
    import torch

    from calculator.families.big_bird import runs_block_sparse

    drawn = [draw(random.Random(f"{SEED}-big_bird-{i}"), "big_bird") for i in range(PER_FAMILY)]
    sparse = [c for c in drawn if runs_block_sparse(engine_build(c["raw"], c["arch"], c["pooler"]).config,
                                                    c["seq_len"]) and c["raw"]["num_hidden_layers"] > 0]
    assert len(sparse) >= PER_FAMILY // 4
    for changes, seq_len in (({}, 14), ({}, 15), ({"num_hidden_layers": 0}, 15),
                             ({"is_decoder": True, "add_cross_attention": True}, 15)):
        raw = dict(TINY_BIG_BIRD, **changes)
        inv = engine_build(raw, "BigBirdModel", None)
        model = make_model("big_bird", "BigBirdModel", {k: v for k, v in raw.items() if k != "model_type"}, "fp32")
        with torch.no_grad():
            model(input_ids=torch.zeros((1, seq_len), dtype=torch.long))
        expected = "block_sparse" if runs_block_sparse(inv.config, seq_len) else "original_full"
        assert model.base_model.attention_type == expected, (changes, seq_len)
    assert runs_block_sparse(engine_build(TINY_BIG_BIRD, "BigBirdModel", None).config, 15)


def test_big_bird_block_refusals_are_steps_pytorch_cannot_run() -> None:
    """No block (block_size ≤ 0) or no random block (num_random_blocks ≤ 0, with layers) at a block-sparse length:
    refused (costs_forward_fails), and transformers' forward indeed fails; without layers no random block is read."""
    import torch

    for changes in ({"block_size": 0}, {"block_size": -2}, {"num_random_blocks": 0}, {"num_random_blocks": -1}):
        raw = dict(TINY_BIG_BIRD, **changes)
        inv = engine_build(raw, "BigBirdModel", None)
        with pytest.raises(CalcError) as caught:
            costs.compute(inv, costs.settings(2, 17))
        assert caught.value.code == "costs_forward_fails", changes
        model = make_model("big_bird", "BigBirdModel", {k: v for k, v in raw.items() if k != "model_type"}, "fp32")
        with pytest.raises((RuntimeError, ValueError, ZeroDivisionError)):
            model(input_ids=torch.zeros((2, 17), dtype=torch.long))
    case = {"raw": dict(TINY_BIG_BIRD, num_random_blocks=0, num_hidden_layers=0), "arch": "BigBirdModel",
            "pooler": None, "batch": 2, "seq_len": 17, "dtype": "fp32", "optimizer": "sgd", "checkpointing": False,
            "plan": "none"}
    inv, plan, got = engine_side(case)
    assert (got.forward, got.activations) == tuple(torch_side(case, inv, plan)[k] for k in ("forward", "activations"))


def refused_and_fails(raw: dict[str, Any], architecture: str, code: str) -> None:
    """The engine refuses ``raw`` with ``code``, and PyTorch indeed cannot run the step (the forward raises)."""
    import torch

    inv = engine_build(raw, architecture, None)
    with pytest.raises(CalcError) as caught:
        costs.compute(inv, costs.settings(2, 3))
    assert caught.value.code == code
    config = {k: v for k, v in raw.items() if k != "model_type"}
    model = make_model(raw["model_type"], architecture, config, "fp32")
    with pytest.raises((RuntimeError, AttributeError)):
        model(input_ids=torch.zeros((2, 3), dtype=torch.long))


def test_mobilebert_refusals_are_steps_pytorch_cannot_run() -> None:
    tiny = {"model_type": "mobilebert", "vocab_size": 20, "embedding_size": 4, "hidden_size": 8, "num_hidden_layers": 1,
            "num_attention_heads": 2, "intermediate_size": 6, "intra_bottleneck_size": 4, "max_position_embeddings": 8}
    refused_and_fails({**tiny, "num_feedforward_networks": 0}, "MobileBertModel", "costs_no_ffn")
    refused_and_fails({**tiny, "true_hidden_size": 6}, "MobileBertModel", "costs_widths")  # q reads the 4-wide bottleneck
    refused_and_fails({**tiny, "key_query_shared_bottleneck": False}, "MobileBertModel", "costs_widths")  # q reads H
    refused_and_fails({**tiny, "num_attention_heads": 3}, "MobileBertModel", "costs_widths")  # heads give 3 × 1


def test_convbert_refusals_are_steps_pytorch_cannot_run() -> None:
    tiny = {"model_type": "convbert", "vocab_size": 20, "embedding_size": 8, "hidden_size": 8, "num_hidden_layers": 1,
            "num_attention_heads": 2, "head_ratio": 1, "intermediate_size": 6, "max_position_embeddings": 8,
            "conv_kernel_size": 3}
    refused_and_fails({**tiny, "conv_kernel_size": 4}, "ConvBertModel", "costs_even_kernel")
    refused_and_fails({**tiny, "hidden_size": 6}, "ConvBertModel", "costs_widths")  # 2 heads of (6 // 2) // 2 = 1
    refused_and_fails({**tiny, "num_groups": 4, "intermediate_size": 10}, "ConvBertModel", "costs_widths")  # 4 ∤ 10


def test_funnel_refusals_are_steps_pytorch_cannot_run() -> None:
    tiny = {"model_type": "funnel", "vocab_size": 20, "block_sizes": [1, 1], "num_decoder_layers": 1, "d_model": 8,
            "n_head": 2, "d_head": 3, "d_inner": 6}
    refused_and_fails({**tiny, "d_model": 7}, "FunnelBaseModel", "costs_widths")  # sinusoids 6 wide, not 7
    refused_and_fails({**tiny, "block_sizes": [1, 0, 1]}, "FunnelBaseModel", "costs_funnel_empty_block")
    inv = engine_build(tiny, "FunnelBaseModel", None)  # L = 2: no pooling, the second block's positions too short
    with pytest.raises(CalcError) as caught:
        costs.compute(inv, costs.settings(2, 2))
    assert caught.value.code == "costs_funnel_short"
    model = make_model("funnel", "FunnelBaseModel", {k: v for k, v in tiny.items() if k != "model_type"}, "fp32")
    import torch

    with pytest.raises(RuntimeError):
        model(input_ids=torch.zeros((2, 2), dtype=torch.long))
    assert costs.compute(inv, costs.settings(2, 3)).forward > 0  # three tokens run


def test_published_shapes_with_their_lora_targets() -> None:
    """The random draws name BERT's modules; here the targets people use on DeBERTa-v3 (peft's default,
    query_proj and value_proj, which share_att_key also runs over the relative table) and on ModernBERT
    (Wqkv, Wo), on tiny copies of the published configs, with checkpointing and bf16."""
    v3 = {**FAMILIES["deberta-v2"].presets[0].config, "vocab_size": 50, "hidden_size": 8, "num_attention_heads": 2,
          "intermediate_size": 12, "num_hidden_layers": 2, "position_buckets": 4, "max_position_embeddings": 16}
    modern = {**FAMILIES["modernbert"].presets[0].config, "vocab_size": 50, "pad_token_id": 3, "hidden_size": 8,
              "num_attention_heads": 2, "intermediate_size": 12, "num_hidden_layers": 4}
    for raw, arch, targets in ((v3, "DebertaV2ForSequenceClassification", "query_proj,value_proj"),
                               (modern, "ModernBertForMaskedLM", "Wqkv,Wo")):
        case = {"raw": raw, "arch": arch, "pooler": None, "batch": 2, "seq_len": 6, "dtype": "bf16",
                "optimizer": "adamw", "checkpointing": True, "plan": "lora",
                "lora": {"r": 2, "targets": targets, "bias": "none", "task_type": None}}
        inv, plan, got = engine_side(case)
        figures = {"forward": got.forward, "backward": got.backward, "weights": got.weights,
                   "gradients": got.gradients, "optimizer": got.optimizer, "activations": got.activations}
        assert figures == torch_side(case, inv, plan), arch


def test_step_key_defaults_are_transformers() -> None:
    """Each declared step key's default is what the family's config class sets when the key is absent."""
    import transformers

    for mt in COVERED:
        cfg = transformers.AutoConfig.for_model(mt)
        for spec in FAMILIES[mt].costs.keys:
            if spec.nested is not None:  # a composite's sub-config key (ModernVBERT's text_config)
                assert getattr(getattr(cfg, spec.nested[0]), spec.nested[1]) == spec.default, (mt, spec.key)
                continue
            # A heterogeneous config (NeoMME's per-layer sliding_window) refuses the global attribute; its
            # serialised form has the global value.
            value = cfg.to_dict()[spec.key] if getattr(cfg, "_heterogeneity_spec", None) else getattr(cfg, spec.key)
            assert value == spec.default, (mt, spec.key)


#: A tiny Reformer whose training forward runs at L = 4 (axial 2 × 2, chunks of 2).
TINY_REFORMER = {"model_type": "reformer", "vocab_size": 20, "hidden_size": 4, "num_attention_heads": 1,
                 "attention_head_size": 2, "feed_forward_size": 4, "axial_pos_shape": [2, 2],
                 "axial_pos_embds_dim": [2, 2], "max_position_embeddings": 8, "attn_layers": ["lsh", "local"],
                 "lsh_attn_chunk_length": 2, "local_attn_chunk_length": 2, "num_buckets": 2}


def test_reformer_refusals_are_steps_pytorch_cannot_run() -> None:
    """Reformer's training forward refuses a length that is no multiple of the chunk lengths' lcm (past the
    shortest), one that is not the axial shape's product, and an odd bucket count: refused, and PyTorch fails."""
    import torch

    for changes, seq_len, code in (({"axial_pos_embds": False, "local_attn_chunk_length": 3}, 4, "costs_reformer_length"),
                                   ({}, 2, "costs_reformer_length"), ({"num_buckets": 3}, 4, "costs_forward_fails")):
        raw = dict(TINY_REFORMER, **changes)
        inv = engine_build(raw, "ReformerModel", None)
        with pytest.raises(CalcError) as caught:
            costs.compute(inv, costs.settings(2, seq_len))
        assert caught.value.code == code, changes
        model = make_model("reformer", "ReformerModel", {k: v for k, v in raw.items() if k != "model_type"}, "fp32")
        with pytest.raises((ValueError, AssertionError)):
            model(input_ids=torch.zeros((2, seq_len), dtype=torch.long))
    inv = engine_build(TINY_REFORMER, "ReformerModel", None)
    assert costs.compute(inv, costs.settings(2, 4)).forward > 0
    # The inference span (model.eval()): the axial embeddings unpack exactly two axes; one or three fail.
    assert costs.compute_inference(inv, costs.settings(2, 4)).forward > 0
    for shape, dims in (([4], [4]), ([2, 1, 2], [2, 2])):
        raw = dict(TINY_REFORMER, axial_pos_shape=shape, axial_pos_embds_dim=dims)
        inv = engine_build(raw, "ReformerModel", None)
        assert costs.compute(inv, costs.settings(2, 4)).forward > 0  # training takes any count of axes
        with pytest.raises(CalcError) as caught:
            costs.compute_inference(inv, costs.settings(2, 4))
        assert caught.value.code == "costs_forward_fails", shape
        model = make_model("reformer", "ReformerModel", {k: v for k, v in raw.items() if k != "model_type"}, "fp32")
        model.eval()
        with torch.no_grad(), pytest.raises(ValueError):
            model(input_ids=torch.zeros((2, 4), dtype=torch.long))


def test_head_size_1_runs_wider_than_its_heads() -> None:
    """ModernBERT's (and ModernVBERT's text) head size 1: PyTorch's rotary step turns a 1-wide query into a 2-wide
    one (one frequency, doubled, and broadcasting), so the step runs with Q and K two columns wide, V one; the
    program models exactly that, every figure PyTorch's (fp32 and bf16, checkpointing both ways). 3 fails outright
    (``costs_forward_fails``, drawn by test_step_matches_pytorch)."""
    import torch
    from transformers.models.modernbert import modeling_modernbert as mb

    text = {"vocab_size": 20, "pad_token_id": 0, "hidden_size": 2, "num_attention_heads": 2, "num_hidden_layers": 2,
            "intermediate_size": 4}
    composite = {"model_type": "modernvbert", "text_config": text,
                 "vision_config": {"hidden_size": 2, "num_attention_heads": 1, "num_hidden_layers": 0}}
    model = make_model("modernvbert", "ModernVBertModel", {k: v for k, v in composite.items() if k != "model_type"},
                       "fp32")
    q = torch.ones(1, 2, 3, 1)
    cos, sin = model.text_model.rotary_emb(q, torch.arange(3)[None], "full_attention")
    assert cos.shape[-1] == 2
    assert mb.apply_rotary_pos_emb(q, q, cos, sin)[0].shape[-1] == 2
    assert model(input_ids=torch.zeros((1, 3), dtype=torch.long)).last_hidden_state.shape == (1, 3, 2)
    for raw, arch in ((composite, "ModernVBertModel"), ({"model_type": "modernbert", **text}, "ModernBertForMaskedLM")):
        for dtype, checkpointing, reentrant in (("fp32", False, True), ("bf16", True, False), ("fp32", True, True)):
            case = {"raw": raw, "arch": arch, "pooler": None, "batch": 2, "seq_len": 3, "dtype": dtype,
                    "optimizer": "adamw", "checkpointing": checkpointing, "reentrant": reentrant, "plan": "none"}
            inv, plan, got = engine_side(case)
            figures = {"forward": got.forward, "backward": got.backward, "weights": got.weights,
                       "gradients": got.gradients, "optimizer": got.optimizer, "activations": got.activations}
            assert figures == torch_side(case, inv, plan), (arch, dtype, checkpointing, reentrant)


def test_ultrabert_mean_pooling_of_a_frozen_body_keeps_nothing() -> None:
    """UltraBERT's (and UltraVBERT's) mean pooling keeps its bool mask and int64 count only where the body's
    output needs a gradient: with all but the head frozen PyTorch builds no graph there (the step once kept them)."""
    raw = {"model_type": "ultrabert", "vocab_size": 40, "pad_token_id": 0, "hidden_size": 16, "num_attention_heads": 2,
           "num_key_value_heads": 1, "num_hidden_layers": 1, "intermediate_size": 8, "classifier_pooling": "mean",
           "num_labels": 3}
    for frozen in ((True, 0, True), (False, 0, False)):
        case = {"raw": raw, "arch": "UltrabertForSequenceClassification", "pooler": None, "batch": 3, "seq_len": 8,
                "dtype": "bf16", "optimizer": "adamw", "checkpointing": False, "plan": "freeze", "freeze": frozen}
        inv, plan, got = engine_side(case)
        figures = {"forward": got.forward, "backward": got.backward, "weights": got.weights,
                   "gradients": got.gradients, "optimizer": got.optimizer, "activations": got.activations}
        assert figures == torch_side(case, inv, plan), frozen
