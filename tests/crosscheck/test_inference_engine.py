"""Cross-check the inference span (calculator/costs/inference.py) against PyTorch, to the byte and the FLOP.

Issue 32's inference span: ``model.eval()``, ``torch.no_grad()``, one forward, its outputs kept. Per drawn case
(a random tiny config of the family, a class, B, L, dtype, drawn as the costs cross-check draws them, half with a
wider vocabulary so that the weights weigh):

* ``costs.flops.forward`` equals ``FlopCounterMode``'s total of that forward (every family with a step);
* the peak, where the engine gives one (the families whose program declares every release), equals
  ``LiveBytes``' peak (``peak_measure.measure_peak`` with ``inference=True``), with its op and the bytes by kind;
* where it gives none, the measured peak lies within the proven bounds (``peak_note.lower`` / ``upper``).

A figure must be checked for every exact family, so the cross-check cannot pass by refusing.
"""
from __future__ import annotations

import os
import random
from typing import Any

import pytest

from calculator import costs
from calculator.errors import CalcError
from calculator.families import FAMILIES

from .test_costs_reference import COVERED, planned

torch = pytest.importorskip("torch")

from .costs_measure import flop_counter  # noqa: E402
from .peak_measure import Step, build_model, measure_peak  # noqa: E402
from .test_peak_engine import AUTOCAST_EXACT, LIFETIME_DRAW, draw  # noqa: E402

#: The configs narrowed to what a family's program replays (:data:`test_peak_engine.LIFETIME_DRAW`), but Reformer's:
#: its inference span is replayed on every drawn config (LSH too), its training step only for local attention.
INFERENCE_DRAW = {mt: narrow for mt, narrow in LIFETIME_DRAW.items() if mt != "reformer"}
PER_FAMILY = int(os.environ.get("INFERENCE_RANDOM", "6"))
SEED = int(os.environ.get("CROSSCHECK_SEED", "20261125"))
#: The families whose inference peak is exact: their program declares every release (``sim.exact_forward()``).
EXACT = ("bert", "ernie", "roberta", "xlm-roberta", "camembert", "data2vec-text", "electra", "distilbert", "albert",
         "roc_bert", "layoutlm", "modernbert", "eurobert")
EXACT += ("megatron-bert", "xlm-roberta-xl", "roberta-prelayernorm", "mpnet")  # the pre-LN layer (families/blocks.py)
# Every drawn config of an exact family is replayed: EuroBERT, ModernBERT and their composites every head size they
# run (one-wide heads too, LiveSim.rotate_one_wide; SDPA's math path with the window's mask).
EXACT += ("deberta-v2",)
EXACT += ("roformer", "esm")
EXACT += ("rembert", "xlm", "flaubert")
EXACT += ("gte", "jina_embeddings_v3", "esmc")
EXACT += ("t5", "mt5", "umt5")
EXACT += ("ultrabert",)
EXACT += ("modernvbert",)  # ModernBERT's text path (the vision tower never runs on input_ids)
EXACT += ("ultravbert",)
EXACT += ("luke",)
EXACT += ("tapas",)
EXACT += ("xmod",)  # post-LN and pre-LN layers (pre_norm)
EXACT += ("fnet", "nystromformer")
EXACT += ("mobilebert",)
EXACT += ("squeezebert",)
EXACT += ("convbert",)
EXACT += ("big_bird",)  # original_full (big_bird.step_full): a decoder's causal mask and cache, question answering
EXACT += ("longformer",)  # every class step_inference runs, sequence classification's global attention too
EXACT += ("nomic_bert",)
EXACT += ("deberta",)  # DebertaLayerNorm op by op, the fused Q/K/V split
EXACT += ("funnel",)  # pooling, relative attention (both kinds), the decoder's upsampling, every class
EXACT += ("ibert",)  # quant_mode false (in eval no QuantAct updates its range)
EXACT += ("neomme",)  # eager and SDPA, float32 and bf16
EXACT += ("perceiver",)  # its text classes (masked LM, sequence classification), eager
EXACT += ("yoso",)  # YosoCumulation's no-grad forward, F.normalize op by op
EXACT += ("reformer",)  # reversible layers as plain forwards, LSH hashing and sorting, local chunks, the cache
PEAK_FAMILIES = tuple(mt for mt, f in FAMILIES.items() if f.costs is not None and f.costs.buffers is not None)
KIND = {"weights": "param", "buffer": "buffer", "input_ids": "input_ids", "activation": "act"}


def inference_case(model_type: str, index: int, narrow: bool = False) -> dict[str, Any] | None:
    """A drawn case the engine accepts (no plan: inference trains nothing), or None; ``narrow``: the config narrowed
    to what the family's program replays (``LIFETIME_DRAW``: DeBERTa-v2's)."""
    rng = random.Random(f"{SEED}-inference-{model_type}-{index}")
    for _ in range(60):  # some families refuse many draws (DeBERTa-v2's gelu_new, its kernel size)
        case = draw(rng, model_type)
        case["plan"] = "none"
        raw = case["raw"]
        if narrow:
            INFERENCE_DRAW.get(model_type, lambda raw: None)(raw)
        if index % 2:
            (raw["text_config"] if "text_config" in raw else raw)["vocab_size"] = rng.randint(600, 4000)  # composites
            case["batch"], case["seq_len"] = 1, min(case["seq_len"], 4)
        else:
            case["batch"] = rng.randint(1, 8)
        try:
            inv, _ = planned(case)
            case["costs"] = costs.compute_inference(inv, costs.settings(case["batch"], case["seq_len"], case["dtype"]))
        except CalcError:
            continue
        case["inv"] = inv
        return case
    return None


def step_of(case: dict[str, Any]) -> Step:
    config = {k: v for k, v in case["raw"].items() if k not in ("model_type", "architectures")}
    return Step(case["inv"].model_type, case["arch"], config, case["batch"], case["seq_len"], dtype=case["dtype"],
                pooler=case["pooler"], inference=True, attention=case.get("attention", "eager"),
                autocast=bool(case.get("autocast")))


def measured_flops(case: dict[str, Any]) -> int:
    step = step_of(case)
    model = build_model(step)
    model.eval()
    torch.manual_seed(1)
    ids = torch.randint(0, model.config.get_text_config().vocab_size, (step.batch, step.seq_len))
    # Its module tracker replaced (same totals): under no_grad it would hook a parameter a module returns as it is
    # (DeBERTa-v2's relative embeddings), which has no grad_fn, and fail.
    counter = flop_counter(True)
    with torch.no_grad(), counter:
        model(input_ids=ids)
    return counter.get_total_flops()


def check_peak(case: dict[str, Any]) -> bool:
    """The figure is the measured peak (op, bytes by kind), or the measured peak lies within the bounds."""
    engine = case["costs"].peak
    result = measure_peak(step_of(case))
    where = (case["arch"], case["batch"], case["seq_len"], case["dtype"], case["raw"])
    if engine.bytes is None:
        if engine.upper is not None:
            assert engine.lower <= result.peak <= engine.upper, (where, engine.lower, result.peak, engine.upper)
        return False
    assert (engine.bytes, engine.phase, engine.op) == (result.peak, result.phase, result.op), where
    kinds: dict[str, int] = {}
    for kind, n in engine.by_kind.items():
        kinds[KIND[kind]] = kinds.get(KIND[kind], 0) + n
    assert kinds == result.by_kind(), where
    return True


@pytest.mark.parametrize("model_type", EXACT)
def test_inference_peak_equals_pytorch(model_type: str) -> None:
    """Every drawn case of an exact family gives a figure, and it is the measured peak."""
    figures = 0
    for index in range(PER_FAMILY):
        case = inference_case(model_type, index, narrow=True)
        if case is not None:
            assert case["costs"].peak.bytes is not None, (model_type, case["arch"], case["costs"].peak.reason)
            figures += check_peak(case)
    assert figures > 0 or PER_FAMILY < 2, model_type


def test_every_family_replays_its_inference_span() -> None:
    """Every family with a peak replays its inference span tensor by tensor (Reformer, the last one bounded, since its
    LSH and local attention were listed storage by storage): each is in EXACT, so test_inference_peak_equals_pytorch
    draws it, and every drawn config gets a figure. A family added with bounds only must say so here."""
    assert [mt for mt in PEAK_FAMILIES if mt not in EXACT] == []


@pytest.mark.parametrize("model_type", COVERED)
def test_inference_forward_flops_equal_pytorch(model_type: str) -> None:
    """``costs.flops.forward`` of the inference span equals FlopCounterMode's count of ``model.eval()``'s forward
    under ``torch.no_grad()``, for every family with a step."""
    checked = 0
    for index in range(max(PER_FAMILY // 3, 1)):
        case = inference_case(model_type, index)
        if case is not None:
            assert case["costs"].forward == measured_flops(case), (case["arch"], case["raw"])
            checked += 1
    assert checked > 0 or PER_FAMILY < 3, model_type


def test_bert_base_inference_figure() -> None:
    """The unit test's hand-worked inference figure (tests/unit/test_inference.py), measured once on fake tensors:
    BertModel bert-base, B 8, L 128, fp32, eager."""
    import transformers

    from calculator.build import build

    keys = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size",
            "max_position_embeddings", "type_vocab_size")
    config = {k: v for k, v in transformers.BertConfig().to_dict().items() if k in keys}
    inv = build(dict(config, model_type="bert"), "BertModel", None)
    engine = costs.compute_inference(inv, costs.settings(8, 128)).peak
    result = measure_peak(Step("bert", "BertModel", config, 8, 128, inference=True), fake=True)
    assert (engine.bytes, engine.phase, engine.op) == (result.peak, result.phase, result.op)
    assert result.peak == 478_839_808


def test_xmod_post_ln_inference_peak_equals_pytorch() -> None:
    """X-MOD's post-LN layers (``pre_norm`` false, its published checkpoints') declare every release (the pre-LN ones
    too: X-MOD is in EXACT): every drawn post-LN case gives a figure, and it is the measured peak."""
    figures = 0
    for index in range(2 * PER_FAMILY):
        case = inference_case("xmod", index)
        if case is None or case["inv"].config["pre_norm"]:
            continue
        assert case["costs"].peak.bytes is not None, (case["arch"], case["costs"].peak.reason)
        figures += check_peak(case)
    assert figures > 0 or PER_FAMILY < 2


def variant_case(model_type: str, index: int, attention: str, autocast: bool) -> dict[str, Any] | None:
    """:func:`inference_case` with ``attention`` (SDPA: its dropout keys 0, as ``peak_measure.build_model`` sets
    them) and bf16 autocast around the forward (weights fp32)."""
    rng = random.Random(f"{SEED}-inference-{attention}-{autocast}-{model_type}-{index}")
    for _ in range(60):
        case = draw(rng, model_type)
        case.update(plan="none", attention=attention, autocast=autocast)
        raw = case["raw"]
        INFERENCE_DRAW.get(model_type, lambda raw: None)(raw)  # what the program replays (DeBERTa-v2's)
        if autocast:
            case["dtype"] = "fp32"
        if attention == "sdpa":
            for key in FAMILIES[model_type].costs.sdpa_dropout:
                raw[key] = 0.0
        if index % 2:
            raw["vocab_size"] = rng.randint(600, 4000)
            case["batch"], case["seq_len"] = 1, min(case["seq_len"], 4)
        else:
            case["batch"] = rng.randint(1, 8)
        try:
            inv, _ = planned(case)
            case["costs"] = costs.compute_inference(inv, costs.settings(
                case["batch"], case["seq_len"], case["dtype"], attention=attention, autocast="bf16" if autocast else None))
        except CalcError:
            continue
        case["inv"] = inv
        return case
    return None


#: The families whose program models autocast's copies too (``sim.exact_autocast()``), the same for the inference span
#: as for the training step (:data:`test_peak_engine.AUTOCAST_EXACT`; T5's SDPA at inference runs the flash kernel, the
#: bias needing no gradient): the others keep their bounds under autocast (``test_inference_bounds_hold``'s rule).
#: Every drawn config of those is replayed under autocast too (ModernBERT's one-wide heads, the last left bounded,
#: since: LiveSim._rotary_float_one_wide).
#: Families exact under autocast in the inference span only (their training step keeps its bounds under autocast, so
#: they are not in :data:`test_peak_engine.AUTOCAST_EXACT`). Reformer is there now (its training step replayed under
#: autocast for local attention), its inference span replayed for every drawn config.
INFERENCE_AUTOCAST_EXACT = ("reformer",)


@pytest.mark.parametrize("model_type,attention,autocast",
                         [(mt, a, m) for mt in EXACT for a, m in (("sdpa", False), ("eager", True), ("sdpa", True))
                          if (a == "eager" or FAMILIES[mt].costs.sdpa)
                          and (not m or mt in AUTOCAST_EXACT or mt in INFERENCE_AUTOCAST_EXACT)])
def test_inference_peak_under_sdpa_and_autocast_equals_pytorch(model_type: str, attention: str, autocast: bool) -> None:
    """The inference span under SDPA (the flash kernel's output, its float32 logsumexp dropped at once) and under
    bf16 autocast (the cast cache keeps every weight's and bias's copy to the forward's end): every drawn case of an
    exact family gives a figure, and it is the measured peak (op, bytes by kind)."""
    figures = 0
    for index in range(PER_FAMILY):
        case = variant_case(model_type, index, attention, autocast)
        if case is not None:
            assert case["costs"].peak.bytes is not None, (model_type, case["arch"], case["costs"].peak.reason)
            figures += check_peak(case)
    assert figures > 0 or PER_FAMILY < 2, model_type


def test_bge_m3_inference_under_autocast_with_sdpa() -> None:
    """bge-m3 (XLMRobertaModel) embedding 16 passages of 1,024 tokens with SDPA under bf16 autocast, on fake
    tensors: the engine's figure is LiveBytes' peak."""
    from calculator.build import build
    from calculator.presets import get_preset

    raw = dict(get_preset("BAAI/bge-m3").config)
    inv = build(raw)
    engine = costs.compute_inference(inv, costs.settings(16, 1024, attention="sdpa", autocast="bf16")).peak
    config = {k: v for k, v in raw.items() if k not in ("model_type", "architectures")}
    result = measure_peak(Step(inv.model_type, inv.architecture, config, 16, 1024, attention="sdpa", autocast=True,
                               inference=True, pooler=None if inv.arch.pooler is not None else inv.pooler), fake=True)
    assert (engine.bytes, engine.phase, engine.op) == (result.peak, result.phase, result.op)


def test_longformer_base_4096_inference_at_4096_tokens() -> None:
    """Issue 32's "will it fit at 4096?" for Longformer's inference span: longformer-base-4096's widths and window (512)
    with one layer, B 1, L 4,096, fp32, on real tensors (fake ones cannot answer the encoder's ``.any().item()``): the
    engine's figure is LiveBytes' peak (op and bytes), in ``_pad_and_diagonalize``'s pad of the probabilities."""
    from calculator.build import build
    from calculator.presets import get_preset

    raw = dict(get_preset("allenai/longformer-base-4096").config, num_hidden_layers=1)
    inv = build(raw)
    engine = costs.compute_inference(inv, costs.settings(1, 4096)).peak
    config = {k: v for k, v in raw.items() if k not in ("model_type", "architectures")}
    result = measure_peak(Step(inv.model_type, inv.architecture, config, 1, 4096, inference=True))
    assert engine.bytes is not None, engine.reason
    assert (engine.bytes, engine.phase, engine.op) == (result.peak, result.phase, result.op)
    assert result.op == "aten.constant_pad_nd"


def test_big_bird_switch_to_full_attention_inference() -> None:
    """A block_sparse BigBird run at L ≤ (5 + 2·r)·block_size: ``BigBirdModel.forward`` switches every layer to
    ``original_full``, building a BigBirdSelfAttention per layer (three float32 Linears, replaced at once by the layer's
    own) inside the span. In fp32 and bf16, B 1 and 2, the engine's figure is LiveBytes' peak, there (``aten.empty``)."""
    config = dict(vocab_size=30, hidden_size=96, num_hidden_layers=2, num_attention_heads=12, intermediate_size=12,
                  max_position_embeddings=64, type_vocab_size=2, attention_type="block_sparse", block_size=3,
                  num_random_blocks=1, hidden_act="gelu", use_bias=True)
    from calculator.build import build

    for arch, batch, dtype in (("BigBirdModel", 1, "fp32"), ("BigBirdForMaskedLM", 2, "bf16")):
        inv = build(dict(config, model_type="big_bird"), arch, None)
        engine = costs.compute_inference(inv, costs.settings(batch, 6, dtype)).peak
        result = measure_peak(Step("big_bird", arch, config, batch, 6, dtype=dtype, inference=True))
        assert (engine.bytes, engine.phase, engine.op) == (result.peak, result.phase, result.op), (arch, dtype)
        assert result.op == "aten.empty"
@pytest.mark.parametrize("preset,attention", [("microsoft/deberta-v3-large", "eager"),
                                               ("answerdotai/ModernBERT-large", "sdpa")])
def test_inference_under_autocast_at_full_size(preset: str, attention: str) -> None:
    """DeBERTa-v3-large (eager: it has no SDPA) and ModernBERT-large (SDPA, its default; the window mask bf16 under
    autocast) embedding 16 passages of 512 tokens under bf16 autocast, on fake tensors: the engine's figure is
    LiveBytes' peak."""
    from calculator.build import build
    from calculator.presets import get_preset

    raw = dict(get_preset(preset).config)
    inv = build(raw)
    engine = costs.compute_inference(inv, costs.settings(16, 512, attention=attention, autocast="bf16")).peak
    config = {k: v for k, v in raw.items() if k not in ("model_type", "architectures")}
    result = measure_peak(Step(inv.model_type, inv.architecture, config, 16, 512, attention=attention, autocast=True,
                               inference=True, pooler=None if inv.arch.pooler is not None else inv.pooler), fake=True)
    assert engine.bytes is not None, (preset, engine.reason)
    assert (engine.bytes, engine.phase, engine.op) == (result.peak, result.phase, result.op), preset


#: Funnel's corners a few draws may miss: the factorized attention, max pooling, three blocks (two poolings, the
#: decoder's upsampling by 4), repeats (a block repeated 0 times), a trailing empty block, one-wide heads (at::linear's
#: matmul path on attn_vec's view), L ≤ 2 (no pooling), every class.
FUNNEL_CORNERS = (
    ({"block_sizes": [1, 1, 1]}, "FunnelModel", 1, 8),
    ({"block_sizes": [2, 1], "block_repeats": [2, 3], "pooling_type": "max"}, "FunnelForTokenClassification", 2, 7),
    ({"block_sizes": [2, 2], "block_repeats": [0, 1]}, "FunnelBaseModel", 2, 5),
    ({"block_sizes": [1, 1, 0], "d_head": 1}, "FunnelForQuestionAnswering", 2, 9),
    ({"block_sizes": [1, 1], "attention_type": "factorized", "pooling_type": "max"}, "FunnelForPreTraining", 2, 3),
    ({"block_sizes": [1, 2], "attention_type": "factorized"}, "FunnelForMaskedLM", 1, 9),
    ({"block_sizes": [1, 2], "attention_type": "factorized"}, "FunnelForSequenceClassification", 3, 2),
)


@pytest.mark.parametrize("dtype", ["fp32", "bf16"])
def test_funnel_inference_corners_equal_pytorch(dtype: str) -> None:
    """Funnel's forward replayed in each corner of :data:`FUNNEL_CORNERS`: a figure every time, LiveBytes' peak (op,
    bytes by kind)."""
    from calculator.build import build

    for extra, arch, batch, seq_len in FUNNEL_CORNERS:
        raw = {"model_type": "funnel", "vocab_size": 20, "num_decoder_layers": 1, "d_model": 4, "n_head": 2,
               "d_head": 2, "d_inner": 3, "num_labels": 2, **extra}
        inv = build(dict(raw), arch, None)
        case = {"raw": raw, "arch": arch, "batch": batch, "seq_len": seq_len, "dtype": dtype, "pooler": None,
                "inv": inv, "costs": costs.compute_inference(inv, costs.settings(batch, seq_len, dtype))}
        assert case["costs"].peak.bytes is not None, (arch, extra)
        assert check_peak(case), (arch, extra)
@pytest.mark.parametrize("autocast", (None, "bf16"))
def test_big_bird_unread_pooler_lives_to_the_heads_end(autocast: str | None) -> None:
    """BigBirdForMaskedLM computes the pooler its head never reads; ``outputs`` holds the pooled output until the
    class's forward returns, so at the vocabulary projection (the peak with a large vocabulary) it is live: the
    engine's figure is LiveBytes' (fp32, and under bf16 autocast), [B, H] more than if it died with the model's
    forward (as the program had it before: 128 bytes short in fp32 at B 2, H 16)."""
    from calculator.build import build

    raw = {"model_type": "big_bird", "vocab_size": 2675, "num_hidden_layers": 1, "num_attention_heads": 2,
           "hidden_size": 16, "intermediate_size": 12, "attention_type": "original_full"}
    inv = build(dict(raw), "BigBirdForMaskedLM")
    engine = costs.compute_inference(inv, costs.settings(2, 4, autocast=autocast)).peak
    config = {k: v for k, v in raw.items() if k != "model_type"}
    result = measure_peak(Step("big_bird", "BigBirdForMaskedLM", config, 2, 4, inference=True, autocast=bool(autocast)))
    assert (engine.bytes, engine.phase, engine.op) == (result.peak, result.phase, result.op)


@pytest.mark.parametrize("model_type,autocast", [(mt, a) for mt in ("convbert", "big_bird") for a in (None, "bf16")])
def test_classification_head_keeps_the_sequence_output(model_type: str, autocast: str | None) -> None:
    """ConvBERT's and BigBird's classification heads in eval: the inactive dropout returns ``features[:, 0, :]``, a
    view of the sequence output, and ``x = self.dense(x)`` drops only that view (the class still names the output).
    With 900 labels the peak lies at ``out_proj``, where the sequence output is live: the engine's figure is
    LiveBytes' (fp32 and bf16 autocast; the program had freed it there, 192 bytes short in fp32)."""
    from calculator.build import build

    raw = {"convbert": {"model_type": "convbert", "vocab_size": 3665, "embedding_size": 16, "hidden_size": 16,
                        "num_hidden_layers": 1, "num_attention_heads": 4, "head_ratio": 3, "conv_kernel_size": 1,
                        "intermediate_size": 1, "max_position_embeddings": 16, "num_labels": 900},
           "big_bird": {"model_type": "big_bird", "vocab_size": 2675, "num_hidden_layers": 1, "num_attention_heads": 2,
                        "hidden_size": 16, "intermediate_size": 12, "attention_type": "original_full",
                        "num_labels": 900}}[model_type]
    arch = {"convbert": "ConvBertForSequenceClassification", "big_bird": "BigBirdForSequenceClassification"}[model_type]
    inv = build(dict(raw), arch)
    engine = costs.compute_inference(inv, costs.settings(1, 3, autocast=autocast)).peak
    config = {k: v for k, v in raw.items() if k != "model_type"}
    result = measure_peak(Step(model_type, arch, config, 1, 3, inference=True, autocast=bool(autocast)))
    assert (engine.bytes, engine.phase, engine.op) == (result.peak, result.phase, result.op) and engine.op == "aten.addmm"


def test_big_bird_block_sparse_inference_exact() -> None:
    """BigBird's block-sparse attention in the inference span (model.eval(): the random plan is numpy's zeros, of
    the same shape as training's), replayed storage by storage (issue 32/34, step 3): every name's release declared
    (``big_bird.step_sparse_attention``'s rebound products and consumed masks, its scopes; BigBirdModel.forward's
    padded ids, types and mask to its end, the ``torch.ones`` mask dropped by the padding): each drawn case (classes,
    fp32 and bf16, padded or not, a decoder, B 1 with a wide vocabulary or more; padded MLM heads read the strided
    unpadded sequence, whose Linear copies it) gives a figure, the measured peak with its op and bytes by kind; the
    engine's storages still cover every byte PyTorch allocates (the bounds' sum)."""
    from calculator.costs.step import simulate

    from .test_peak_engine import BIG_BIRD_SPARSE, big_bird_sparse_case, forward_allocations

    for index in range(BIG_BIRD_SPARSE):
        case = big_bird_sparse_case(index, inference=True)
        assert case is not None, index
        assert case["costs"].peak.bytes is not None, (index, case["costs"].peak.reason)
        sim, _ = simulate(case["inv"], case["costs"].settings, None, inference=True)
        assert sum(sim.storages.values()) >= sum(forward_allocations(case, inference=True)), index
        assert check_peak(case), index


def test_big_bird_block_sparse_without_layers_under_autocast() -> None:
    """Block-sparse BigBird with no layers under bf16 autocast (weights float32), the inference span: the padding, the
    float32 masks (the band mask held to BigBirdModel.forward's end) and the pooler's and heads' Linears with their
    bf16 copies; each drawn case gives a figure, the measured peak (the drawn autocast cases run full attention)."""
    from .test_peak_engine import BIG_BIRD_SPARSE, big_bird_sparse_case

    for index in range(3):
        case = big_bird_sparse_case(index + 2 * BIG_BIRD_SPARSE, inference=True, layers=0, autocast=True)
        assert case is not None, index
        assert check_peak(case), (index, case["costs"].peak.reason)


def test_longformer_self_attention_locals_go_before_its_output() -> None:
    """``LongformerSelfAttention.forward``'s locals (Q, K, V, the masks, the probabilities) are freed as it returns,
    before ``LongformerSelfOutput``'s dense (measured with LiveBytes). A wide layer (H 64, one head) with a window of
    4 at B 1, L 8: counted to the layer's LayerNorm, the engine said 162,152 bytes there; PyTorch's peak is 159,288 in
    the sliding ``bmm``. fp32 and bf16, B 1 and 2 (tiny: real tensors, milliseconds)."""
    from calculator.build import build

    config = dict(vocab_size=10, hidden_size=64, num_hidden_layers=1, num_attention_heads=1, intermediate_size=4,
                  max_position_embeddings=20, type_vocab_size=1, pad_token_id=1, attention_window=4)
    inv = build(dict(config, model_type="longformer"), "LongformerModel", None)
    figures = []
    for batch, dtype in ((1, "fp32"), (1, "bf16"), (2, "fp32")):
        engine = costs.compute_inference(inv, costs.settings(batch, 8, dtype)).peak
        result = measure_peak(Step("longformer", "LongformerModel", config, batch, 8, dtype=dtype, inference=True))
        assert (engine.bytes, engine.phase, engine.op) == (result.peak, result.phase, result.op), (batch, dtype)
        figures.append(engine.bytes)
    assert figures[0] == 159_288


def test_longformer_global_attention_inference() -> None:
    """Sequence classification's global attention (the class gives the first token of each row global attention)
    in the inference span, replayed storage by storage as LiveBytes measures it: the indices' int64 tensors, the
    global key's column, the concatenated scores, the global column's product (a copy more by matmul unless one
    head), the global Q, K, V and their two ``bmm``, each with its size assertion's bool. One head or three, a head
    size of 1 (``einsum``'s ``mul``), per-layer windows, fp32 and bf16: each figure is the measured peak."""
    from calculator.build import build

    base = dict(vocab_size=20, hidden_size=4, num_hidden_layers=1, num_attention_heads=2, intermediate_size=6,
                max_position_embeddings=20, type_vocab_size=1, pad_token_id=1, attention_window=4)
    cases = ((dict(num_attention_heads=1), 3, 5, "fp32"), (dict(hidden_size=2), 2, 9, "bf16"),
             (dict(hidden_size=6, num_attention_heads=3, num_hidden_layers=2, attention_window=[4, 8]), 1, 4, "fp32"))
    for extra, batch, seq_len, dtype in cases:
        config = dict(base, **extra)
        inv = build(dict(config, model_type="longformer"), "LongformerForSequenceClassification", None)
        engine = costs.compute_inference(inv, costs.settings(batch, seq_len, dtype)).peak
        result = measure_peak(Step("longformer", "LongformerForSequenceClassification", config, batch, seq_len,
                                   dtype=dtype, inference=True))
        assert (engine.bytes, engine.phase, engine.op) == (result.peak, result.phase, result.op), extra


#: The drawn GTE config whose heads are one wide (hidden 4, 4 heads): rotary's cos and sin are two wide, so Q and K
#: become two columns, V stays one, and SDPA leaves the flash kernel for its math path (check_head_dim_size_cpp).
GTE_ONE_WIDE = {"vocab_size": 146, "hidden_size": 4, "num_hidden_layers": 1, "num_attention_heads": 4,
                "intermediate_size": 5, "type_vocab_size": 2, "hidden_act": "relu", "hidden_dropout_prob": 0.3,
                "attention_probs_dropout_prob": 0.3, "classifier_dropout": None, "max_position_embeddings": 11}


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
def test_gte_one_wide_heads_inference_replayed(attention: str) -> None:
    """GTE's one-wide heads in inference (the draws above reach them in float32 eager only): the rotation's two-wide
    products laid out as the head split ([B, L, A, 2], so matmul's reshapes copy) and SDPA's math path (float32
    products, a bf16 model's copies) replayed; in float32, bf16 and under bf16 autocast every figure is the measured
    peak (op, bytes by kind)."""
    from calculator.build import build

    for dtype, autocast in (("fp32", False), ("bf16", False), ("fp32", True)):
        case = {"raw": dict(GTE_ONE_WIDE, model_type="gte"), "arch": "GteForSequenceClassification", "batch": 3,
                "seq_len": 9, "dtype": dtype, "pooler": None, "attention": attention, "autocast": autocast}
        case["inv"] = build(case["raw"], case["arch"], None)
        case["costs"] = costs.compute_inference(case["inv"], costs.settings(
            3, 9, dtype, attention=attention, autocast="bf16" if autocast else None))
        assert case["costs"].sdpa_math == (attention == "sdpa"), (dtype, autocast)
        assert check_peak(case), (attention, dtype, autocast)


@pytest.mark.parametrize("autocast", [False, True])
def test_reformer_inference_shorter_than_the_axial_product(autocast: bool) -> None:
    """Reformer's inference span at a length below ``axial_pos_shape``'s product (``model.eval()`` cuts the rows it
    needs from the broadcast weights; training refuses such a length, so no drawn case reaches it): the published
    google/reformer-crime-and-punishment (524,288 axial positions, six layers, LSH and local) at L 1,024, B 1, on real
    tensors (the axial lookup reads ``position_ids.max().item()``): the engine's figure is LiveBytes' peak, op and
    bytes by kind, in float32 and under bf16 autocast."""
    from calculator.build import build
    from calculator.presets import get_preset

    raw = dict(get_preset("google/reformer-crime-and-punishment").config)
    inv = build(raw)
    case = {"inv": inv, "arch": inv.architecture, "batch": 1, "seq_len": 1024, "dtype": "fp32", "pooler": None,
            "autocast": autocast, "raw": raw,
            "costs": costs.compute_inference(inv, costs.settings(1, 1024, autocast="bf16" if autocast else None))}
    assert check_peak(case)
#: One-wide heads of the families running GTE's rotation (LiveSim.rotate_one_wide), which the inference draws above
#: reach rarely (jina-v3 and ESM C never; Nomic BERT without layers, or under SDPA and autocast; EuroBERT, ModernBERT
#: and UltraBERT in about one draw of 150).
ONE_WIDE = {
    "jina_embeddings_v3": ("JinaEmbeddingsV3ForSequenceClassification", dict(GTE_ONE_WIDE, pad_token_id=1)),
    "nomic_bert": ("NomicBertForMaskedLM", {"vocab_size": 20, "hidden_size": 6, "num_hidden_layers": 2,
                                            "num_attention_heads": 3, "head_dim": 1, "intermediate_size": 5}),
    "esmc": ("EsmcForTokenClassification", {"vocab_size": 20, "hidden_size": 4, "num_hidden_layers": 2,
                                            "num_attention_heads": 4, "num_key_value_heads": 4, "intermediate_size": 5}),
    # EuroBERT's one K/V head repeated for SDPA's math path (a stride-0 view: its kᵀ·scale and float32 copy's layout)
    "eurobert": ("EuroBertForTokenClassification", {"vocab_size": 20, "hidden_size": 2, "num_hidden_layers": 2,
                                                    "num_attention_heads": 2, "num_key_value_heads": 1,
                                                    "intermediate_size": 6, "pad_token_id": 1}),
    # ModernBERT's float32 rotation (LiveSim._rotary_float_one_wide); its window's mask from L = 2 (the math path's add)
    "modernbert": ("ModernBertForMaskedLM", {"vocab_size": 8, "hidden_size": 3, "num_hidden_layers": 3,
                                             "num_attention_heads": 3, "intermediate_size": 6, "pad_token_id": 7,
                                             "local_attention": 4}),
    # UltraBERT's window's mask (from L = 4) made in bf16 after autocast's copies of q and k, one K/V head
    "ultrabert": ("UltrabertForSequenceClassification", {"vocab_size": 33, "hidden_size": 2, "num_hidden_layers": 2,
                                                         "num_attention_heads": 2, "num_key_value_heads": 1,
                                                         "intermediate_size": 7, "pad_token_id": 32,
                                                         "sliding_window": 4}),
    # ESM's rotary one-wide heads: ModernBERT's rotation (q.float(), both cast back), token dropout's rescaling on
    "esm": ("EsmForMaskedLM", {"vocab_size": 33, "hidden_size": 4, "num_hidden_layers": 2, "num_attention_heads": 4,
                               "intermediate_size": 6, "position_embedding_type": "rotary", "pad_token_id": 1,
                               "mask_token_id": 32, "token_dropout": True, "max_position_embeddings": 40}),
}


@pytest.mark.parametrize("model_type", ONE_WIDE)
def test_one_wide_heads_inference_replayed(model_type: str) -> None:
    """jina-v3's, Nomic BERT's, ESM C's, EuroBERT's, ModernBERT's, UltraBERT's and ESM's one-wide heads in inference, as
    GTE's above: eager and SDPA (its math path), float32, bf16 and under bf16 autocast, every figure is the measured
    peak (op, bytes by kind)."""
    from calculator.build import build

    arch, raw = ONE_WIDE[model_type]
    for attention, dtype, autocast in [(a, d, m) for a in ("eager", "sdpa") for d, m in
                                       (("fp32", False), ("bf16", False), ("fp32", True))]:
        case = {"raw": dict(raw, model_type=model_type), "arch": arch, "batch": 3, "seq_len": 9, "dtype": dtype,
                "pooler": None, "attention": attention, "autocast": autocast}
        case["inv"] = build(case["raw"], arch, None)
        case["costs"] = costs.compute_inference(case["inv"], costs.settings(
            3, 9, dtype, attention=attention, autocast="bf16" if autocast else None))
        assert case["costs"].sdpa_math == (attention == "sdpa"), (dtype, autocast)
        assert check_peak(case), (attention, dtype, autocast)
