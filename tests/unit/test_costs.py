"""Training-step costs (calculator/costs.py) against hand arithmetic for bert-base-uncased.

The expected numbers are worked out in the comments from the architecture alone
(H = 768, I = 3072, 12 layers of 12 heads, V = 30522, P = 512, T = 2); the
cross-check (tests/crosscheck/test_costs_reference.py) measures the same figures
in PyTorch on random small configs.
"""
from __future__ import annotations

import dataclasses

from calculator import costs, peft
from calculator.build import build
from calculator.presets import get_preset

from .helpers import HUB_ROBERTA_BASE, expect_error

H, I, LAYERS, HEADS = 768, 3072, 12, 12
PARAMS = 109_482_240  # BertModel with its pooler
TENSORS = 199  # 5 in the embeddings, 16 per layer, 2 in the pooler


def bert_base():
    return build(get_preset("bert-base-uncased").config)


def step(inv=None, b=1, n=128, dtype="fp32", optimizer="adamw", checkpointing=False, plan=None) -> costs.Costs:
    return costs.compute(inv or bert_base(), costs.settings(b, n, dtype, optimizer, checkpointing), plan)


def test_forward_flops_bert_base_by_hand():
    # B = 1, L = 128: T = 128 tokens. FlopCounterMode counts 2 per multiply-add, matmuls only.
    # Per layer: Q, K, V, output projections 4 · 2·128·768·768 = 603,979,776
    #            feed-forward pair          2 · 2·128·768·3072 = 1,207,959,552
    #            QKᵀ and probabilities·V    2 · 2·(1·12)·128·64·128 = 4·B·L²·H = 50,331,648
    #            = 1,862,270,976; × 12 layers = 22,347,251,712
    # Pooler: 2·1·768·768 = 1,179,648 (one token per sequence). Embeddings are lookups: 0.
    per_layer = 4 * 2 * 128 * H * H + 2 * 2 * 128 * H * I + 4 * 1 * 128 * 128 * H
    assert per_layer == 1_862_270_976
    c = step()
    assert c.forward == 12 * per_layer + 2 * H * H == 22_348_431_360
    # Everything trains: each matmul has a gradient for both operands, so the backward is twice the forward.
    assert c.backward == 2 * c.forward == 44_696_862_720


def test_forward_is_not_two_n_per_token():
    # 2·N·tokens would be 2 · 109,482,240 · 128 = 28,027,453,440: the 23,837,184 embedding parameters
    # cost no FLOPs (lookups), the pooler sees one token, and attention adds 4·L·H per token per layer.
    c = step()
    assert 2 * PARAMS * 128 == 28_027_453_440 != c.forward
    # What it is: 2 · (the layers' weight matrices, 4H² + 2HI each) · tokens, plus attention, plus the pooler;
    # biases and LayerNorms are additions, not matmuls.
    assert c.forward == 2 * 12 * (4 * H * H + 2 * H * I) * 128 + 12 * 4 * 128 * 128 * H + 2 * H * H


def test_memory_bert_base_adamw_fp32():
    c = step()
    assert c.weights == PARAMS * 4 == 437_928_960
    assert c.gradients == PARAMS * 4
    # AdamW: exp_avg and exp_avg_sq (4 bytes each per parameter) and a float32 step per tensor (199 tensors).
    assert c.optimizer == 2 * PARAMS * 4 + 4 * TENSORS == 875_858_716


def test_activations_bert_base_by_hand():
    # B = 1, L = 128, fp32. A [B, L, H] tensor is 128·768·4 = 393,216 bytes; a [B, L, I] one 1,572,864;
    # a [B, heads, L, L] one 12·128·128·4 = 786,432; LayerNorm's mean and 1/std 2·128·4 = 1,024.
    x, inner, probs, stats = 393_216, 1_572_864, 786_432, 1_024
    # Embeddings: input_ids (8·128) and the gathered token types [1, L] (8·128) kept by the lookups
    # (positions are a slice of a buffer: not counted); the LayerNorm's input and statistics; dropout's
    # mask; dropout's output (the layer-0 input Q, K, V keep).
    embeddings = 1_024 + 1_024 + x + stats + x + x
    # Per layer: Q, K, V outputs (with B = 1 the head split reshapes as views: kept as they are); softmax's
    # output, the dropout mask, the dropped probabilities; the context copied to [B, L, H]; the output
    # dropout mask; LayerNorm input + stats; its output (kept by the FFN); the FFN's inner output (kept by
    # GELU) and GELU's output; the second dropout mask; the second LayerNorm's input + stats; the layer's
    # output (kept by the next layer, the last one by the pooler).
    layer = 3 * x + 3 * probs + x + x + (x + stats) + x + 2 * inner + x + (x + stats) + x
    pooler = 768 * 4  # tanh keeps its output
    c = step()
    assert c.activations == embeddings + 12 * layer + pooler == 114_456_576


def test_checkpointing_bert_base():
    # Checkpointed, each layer keeps only its input; the backward runs each layer's forward again.
    c = step(checkpointing=True)
    x = 393_216
    embeddings = 1_024 + 1_024 + x + 1_024 + x + x
    assert c.activations == embeddings + 11 * x + x + 768 * 4 == 5_904_384
    layers = 12 * 1_862_270_976
    assert c.backward == 2 * 22_348_431_360 + layers == 67_044_114_432
    assert c.forward == 22_348_431_360


def test_frozen_embeddings_stop_the_backward():
    # With the embeddings frozen, layer 0's input needs no gradient: Q, K and V skip their gradient
    # with respect to the input, 3 · 2·128·768·768 = 452,984,832 FLOPs fewer.
    inv = bert_base()
    plan = peft.freeze(inv, embeddings=True)
    c = step(inv, plan=plan)
    assert c.backward == 2 * 22_348_431_360 - 3 * 2 * 128 * H * H == 44_243_877_888
    embeddings = (30522 + 512 + 2) * H + 2 * H
    assert c.gradients == (PARAMS - embeddings) * 4
    assert c.weights == PARAMS * 4


def test_bf16_halves_bytes_but_not_steps():
    fp32, bf16 = step(), step(dtype="bf16")
    assert bf16.forward == fp32.forward and bf16.backward == fp32.backward
    assert bf16.weights * 2 == fp32.weights
    indices = 2 * 1_024  # input_ids and token types are int64 in both runs
    assert (bf16.activations - indices) * 2 == fp32.activations - indices
    assert bf16.optimizer == 2 * PARAMS * 2 + 4 * TENSORS  # the step counters stay float32


def test_optimizers():
    assert step(optimizer="sgd").optimizer == 0
    assert step(optimizer="sgd-momentum").optimizer == PARAMS * 4
    # Adafactor: a matrix [r, c] keeps r + c numbers, a vector all of its own, plus a float32 step each.
    rows_cols = (30522 + 768) + (512 + 768) + (2 + 768) + 12 * (4 * (768 + 768) + (3072 + 768) + (768 + 3072)) \
        + (768 + 768)
    vectors = 2 * 768 + 12 * (4 * 768 + 2 * 768 + 3072 + 768 + 2 * 768) + 768
    assert step(optimizer="adafactor").optimizer == (rows_cols + vectors) * 4 + 4 * TENSORS


def test_lora_adds_its_matmuls():
    # LoRA r = 8 on query and value: per adapted Linear, lora_A (768 → 8) and lora_B (8 → 768) add
    # 2·128·768·8 each in the forward: 4 · 1,572,864 per layer.
    inv = bert_base()
    plan = peft.lora(inv, 8, ["query", "value"])
    c = step(inv, plan=plan)
    assert c.forward == 22_348_431_360 + 12 * 4 * 2 * 128 * H * 8
    # Only the adapters train: 12 layers · 2 modules · (8·768 + 768·8) = 294,912 numbers, float32.
    assert c.gradients == 294_912 * 4
    assert c.weights == (PARAMS + 294_912) * 4


def test_roberta_positions_start_after_padding():
    inv = build(HUB_ROBERTA_BASE, "RobertaModel")
    assert step(inv, n=512).forward > 0
    expect_error("costs_seq_too_long", step, inv, 1, 513)


def test_bad_settings_are_coded_errors():
    expect_error("costs_not_positive", costs.settings, 0, 128)
    expect_error("costs_not_positive", costs.settings, 1, -3)
    expect_error("costs_not_positive", costs.settings, "x", 3)
    expect_error("costs_optimizer", costs.settings, 1, 128, "fp32", "adam")
    expect_error("costs_dtype", costs.settings, 1, 128, "fp16")
    expect_error("too_large", costs.settings, 10**7, 128)
    expect_error("costs_seq_too_long", step, None, 1, 513)


def test_families_without_declarations_are_refused():
    # A family without a declaration (BERT's, with it taken away: which families still lack one changes as
    # they are covered; keras-bert and the 2018 Transformer have their own reasons, test_costs_long_inputs.py).
    inv = bert_base()
    inv = dataclasses.replace(inv, family=dataclasses.replace(inv.family, costs=None))
    exc = expect_error("costs_family", step, inv)
    assert "roberta" in exc.message("en")


def test_multiple_choice_is_refused():
    inv = build(get_preset("bert-base-uncased").config, "BertForMultipleChoice")
    expect_error("costs_architecture", step, inv)


def test_nothing_trainable_is_refused():
    inv = bert_base()
    expect_error("costs_nothing_trainable", step, inv, plan=peft.freeze(inv, embeddings=True, layers=12,
                                                                         all_but_head=True))


def test_json_shape():
    d = step(b=32, n=128).to_dict()
    assert d["batch"] == 32 and d["seq_len"] == 128 and d["dtype"] == "fp32" and d["optimizer"] == "adamw"
    assert set(d["flops"]) == {"forward", "backward"}
    assert set(d["memory"]) == {"weights", "gradients", "optimizer", "activations", "peak", "peak_512"}
    assert all(isinstance(v, int) for v in [*d["flops"].values()] + [d["memory"][k] for k in d["memory"]
                                                                     if k not in ("peak", "peak_512")])
    # B = 32: the activations make the peak, in the backward, worked out op by op (measured in PyTorch:
    # tests/crosscheck/test_peak_engine.py::test_bert_base_b8_l512_in_the_backward, B = 32, L = 128).
    assert d["memory"]["peak"] == 4_149_942_280 and d["peak_at"]["phase"] == "backward" and "peak_note" not in d
    # Adafactor's step is not modelled: no figure, a coded note.
    d = step(b=32, n=128, optimizer="adafactor").to_dict()
    assert d["memory"]["peak"] is None and d["peak_at"] is None and d["peak_note"]["code"] == "peak_not_modelled"


def run_cli(*argv: str) -> tuple[int, str, str]:
    import contextlib
    import io

    from calculator import cli

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_cli_json_contract():
    import json

    code, out, err = run_cli("--preset", "bert-base-uncased", "--batch", "1", "--seq-len", "128", "--format", "json",
                             "--optimizer", "sgd-momentum", "--dtype", "bf16", "--grad-checkpointing",
                             "--attention", "eager")  # the figures below are eager attention's (worked out by hand)
    assert code == 0 and err == ""
    c = json.loads(out)["costs"]
    assert c["batch"] == 1 and c["seq_len"] == 128 and c["dtype"] == "bf16" and c["optimizer"] == "sgd-momentum"
    assert c["grad_checkpointing"] == "non-reentrant"  # the flag alone: transformers 5.23's default
    assert c["flops"] == {"forward": 22_348_431_360, "backward": 67_044_114_432}
    assert c["memory"]["weights"] == PARAMS * 2 and c["memory"]["optimizer"] == PARAMS * 2


def test_cli_without_step_options_has_no_costs():
    import json

    code, out, _ = run_cli("--preset", "bert-base-uncased", "--format", "json")
    assert code == 0 and "costs" not in json.loads(out)


def test_cli_text_and_markdown_in_both_languages():
    for lang, word in (("en", "Training step"), ("zh", "训练一步")):
        for fmt in ("text", "markdown"):
            code, out, err = run_cli("--preset", "bert-base-uncased", "--batch", "1", "--seq-len", "128",
                                     "--attention", "eager", "--format", fmt, "--lang", lang)
            assert code == 0 and err == "", (lang, fmt)
            assert word in out and "22,348,431,360" in out and "114,456,576" in out, (lang, fmt)


def test_cli_bad_step_options_are_coded_in_both_languages():
    bad = (
        (("--batch", "0", "--seq-len", "3"), "costs_not_positive"),
        (("--batch", "2", "--seq-len", "-1"), "costs_not_positive"),
        (("--batch", "2", "--seq-len", "513"), "costs_seq_too_long"),
        (("--batch", "2", "--seq-len", "5", "--optimizer", "adam"), "costs_optimizer"),
        (("--batch", "2", "--seq-len", "5", "--dtype", "fp16"), "costs_dtype"),
    )
    for args, code_name in bad:
        messages = []
        for lang in ("en", "zh"):
            code, out, err = run_cli("--preset", "bert-base-uncased", *args, "--lang", lang)
            assert code == 2 and out == "" and err.startswith(f"error: {code_name}: "), (args, err)
            messages.append(err)
        assert messages[0] != messages[1], args


def test_page_answer_and_errors_beside_their_fields():
    from calculator import api

    r = api.compute_costs({"preset": "bert-base-uncased", "batch": "1", "seq_len": "128", "optimizer": "sgd",
                           "attention": "eager"})  # eager: the figures below are worked out by hand for it
    assert r["ok"] and r["costs"]["flops"]["forward"] == 22_348_431_360 and r["costs"]["memory"]["optimizer"] == 0
    assert r["query"] == {"batch": "1", "seq_len": "128", "optimizer": "sgd", "attention": "eager"}
    lengths = [p["seq_len"] for p in r["series"]]
    assert lengths == sorted(lengths) and max(lengths) == 512 and 128 in lengths
    point = next(p for p in r["series"] if p["seq_len"] == 128)
    assert point["flops"] == 3 * 22_348_431_360 and point["activations"] == 114_456_576
    for params, code, field in (
        ({"batch": "0"}, "costs_not_positive", "batch"),
        ({"seq_len": ""}, "costs_not_positive", "seq_len"),
        ({"seq_len": "513"}, "costs_seq_too_long", "seq_len"),
        ({"optimizer": "adam"}, "costs_optimizer", "optimizer"),
        ({"dtype": "fp16"}, "costs_dtype", "dtype"),
    ):
        for lang in ("en", "zh"):
            e = api.compute_costs({"preset": "bert-base-uncased", **params}, lang)["error"]
            assert e["code"] == code and e["field"] == field and e["message"], (params, e)


def test_lora_on_an_embedding_is_refused_not_guessed():
    inv = bert_base()
    plan = peft.lora(inv, 4, ["word_embeddings", "query"])
    expect_error("costs_lora_embedding", step, inv, plan=plan)


def test_albert_and_mpnet_refuse_checkpointing():
    for name in ("albert-base-v2", "microsoft/mpnet-base"):
        inv = build(get_preset(name).config)
        assert step(inv).forward > 0
        expect_error("costs_no_checkpointing", step, inv, checkpointing=True)


# ------------------------------------------------------------ the step's config keys (dropouts, activation)


def bert_base_with(**keys):
    return build({**get_preset("bert-base-uncased").config, **keys})


def test_step_keys_are_kept_checked_and_leave_the_counts_alone():
    inv = bert_base_with(hidden_dropout_prob=0, hidden_act="relu")
    assert inv.total == bert_base().total == PARAMS
    assert inv.config["hidden_dropout_prob"] == 0.0 and inv.config["hidden_act"] == "relu"
    defaults = bert_base().config
    assert (defaults["hidden_act"], defaults["hidden_dropout_prob"], defaults["attention_probs_dropout_prob"],
            defaults["classifier_dropout"]) == ("gelu", 0.1, 0.1, None)  # BertConfig's defaults
    for bad in (1.5, -0.1, "abc", True, None, [0.1]):
        expect_error("bad_fraction", bert_base_with, hidden_dropout_prob=bad)
    for bad in (3, None, "", ["gelu"]):
        expect_error("bad_value", bert_base_with, hidden_act=bad)
    # A string activation the simulator does not model: counted, but its step is refused, not guessed.
    silu = bert_base_with(hidden_act="silu")
    assert silu.total == PARAMS
    expect_error("costs_hidden_act", step, silu)


def test_bert_base_without_hidden_dropout_by_hand():
    # hidden_dropout_prob = 0: nn.Dropout(0) returns its input and keeps no mask. B = 1, L = 128, fp32:
    # a mask is [B, L, H] in the input's dtype, 128·768·4 = 393,216 bytes. The embeddings' dropout and each
    # layer's two (after the attention's output projection, after the feed-forward) lose theirs; the outputs
    # they returned were kept only by the next matmul, which now keeps the undropped tensor instead.
    x = 393_216
    lost = x + 12 * 2 * x
    c = step(bert_base_with(hidden_dropout_prob=0.0))
    assert lost == 9_830_400
    assert c.activations == 114_456_576 - lost == 104_626_176
    base = step()
    assert (c.forward, c.backward, c.weights, c.gradients, c.optimizer) == (
        base.forward, base.backward, base.weights, base.gradients, base.optimizer)
    # The attention's dropout too: softmax's output is then what P·V keeps, so the mask [B, heads, L, L]
    # and the dropped copy go, 2 · 12·128·128·4 per layer.
    both = step(bert_base_with(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0))
    assert both.activations == 104_626_176 - 12 * 2 * 786_432 == 85_751_808
    # Any p > 0 keeps the same mask: the cost does not depend on its size.
    assert step(bert_base_with(hidden_dropout_prob=0.5)).activations == base.activations


def test_bert_base_with_relu_by_hand():
    # GELU's backward needs its input; ReLU's (threshold_backward) its output, which the feed-forward's
    # second Linear keeps anyway: each layer keeps one [B, L, I] tensor fewer, 128·3072·4 = 1,572,864 bytes.
    c = step(bert_base_with(hidden_act="relu"))
    assert c.activations == 114_456_576 - 12 * 1_572_864 == 95_582_208
    assert c.forward == step().forward
    # gelu_new is written out in Python: x, tanh(...), 0.5·x and 1 + tanh(...) kept, three more than GELU.
    assert step(bert_base_with(hidden_act="gelu_new")).activations == 114_456_576 + 12 * 3 * 1_572_864


def test_classifier_dropout_falls_back_to_the_hidden_one():
    # BertForSequenceClassification: nn.Dropout(classifier_dropout if not None else hidden_dropout_prob) on
    # the pooled [B, H] output; its mask is 768·4 bytes at B = 1.
    cfg = {**get_preset("bert-base-uncased").config, "architectures": ["BertForSequenceClassification"]}
    off = step(build({**cfg, "hidden_dropout_prob": 0.0}))
    on = step(build({**cfg, "hidden_dropout_prob": 0.0, "classifier_dropout": 0.2}))
    assert on.activations - off.activations == 768 * 4 + 768 * 4  # the mask and the dropped output (kept by the classifier)
    assert build(cfg).config["classifier_dropout"] is None


def test_a_key_the_program_does_not_read_is_refused_unless_it_costs_as_the_default():
    inv = bert_base_with(hidden_dropout_prob=0.0)
    model = inv.family.costs
    keys = tuple(costs.unread([k])[0] if k.key == "hidden_dropout_prob" else k for k in model.keys)
    family = dataclasses.replace(inv.family, costs=dataclasses.replace(model, keys=keys))
    err = expect_error("costs_step_value", step, dataclasses.replace(inv, family=family))
    assert "hidden_dropout_prob > 0" in err.message("en") and "hidden_dropout_prob > 0" in err.message("zh")
    # p = 1: torch multiplies by a zero scalar (kept instead of a mask): refused for every key, read or not.
    assert bert_base_with(attention_probs_dropout_prob=1).total == PARAMS
    expect_error("costs_step_value", step, bert_base_with(attention_probs_dropout_prob=1))
    # unread(BERT_KEYS): every key default-only; relu refused with its own default named.
    relu = bert_base_with(hidden_act="relu")
    whole = dataclasses.replace(relu.family, costs=dataclasses.replace(model, keys=costs.unread(costs.BERT_KEYS)))
    assert "hidden_act = gelu" in expect_error("costs_step_value", step, dataclasses.replace(relu, family=whole)).message("en")
    # 0.3 keeps a mask as 0.1 does: the same step, so accepted.
    other = dataclasses.replace(bert_base_with(hidden_dropout_prob=0.3), family=family)
    assert step(other).activations == step().activations


def test_families_declare_transformers_defaults():
    from calculator.families import FAMILIES

    def defaults(mt):
        return {k.key: k.default for k in FAMILIES[mt].costs.keys}

    bert_like = {"hidden_act": "gelu", "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
                 "classifier_dropout": None}
    for mt in ("bert", "roberta", "xlm-roberta", "camembert", "data2vec-text", "ernie", "electra"):
        assert defaults(mt) == bert_like, mt
    assert defaults("big_bird") == {**bert_like, "hidden_act": "gelu_new"}
    assert defaults("longformer") == defaults("mpnet") == {"hidden_act": "gelu", "hidden_dropout_prob": 0.1,
                                                            "attention_probs_dropout_prob": 0.1}
    assert defaults("albert") == {"hidden_act": "gelu_new", "hidden_dropout_prob": 0.0,
                                  "attention_probs_dropout_prob": 0.0, "classifier_dropout_prob": 0.1}
    assert defaults("distilbert") == {"activation": "gelu", "dropout": 0.1, "attention_dropout": 0.1,
                                      "qa_dropout": 0.1, "seq_classif_dropout": 0.2}


def bigbird_base(arch="BigBirdForPreTraining"):
    return build(get_preset("google/bigbird-roberta-base").config, arch)


def bigbird_sparse_layer_flops(b, n, h, heads, inter, block, rand):
    """One BigBird layer with block-sparse attention, forward FLOPs by hand (2 per multiply-add).

    Q, K, V and the output projection: 4 · 2·B·n·H²; the feed-forward pair: 2 · 2·B·n·H·I. The attention,
    per head of width d, with m = n / block blocks: the first and last query blocks against all n keys
    (scores and context: 2 · 2·block·n·d each), the second and second-to-last against (4 + r) blocks
    (2 · 2·block·(4 + r)·block·d each), the m − 4 middle blocks against 3 sliding + r random + 2 global
    blocks (2 · 2·block·(5 + r)·block·d each).
    """
    d, m = h // heads, n // block
    attention = 2 * (2 * 2 * block * n * d) + 2 * (2 * 2 * block * (4 + rand) * block * d)
    attention += (m - 4) * 2 * 2 * block * (5 + rand) * block * d
    return b * (4 * 2 * n * h * h + 2 * 2 * n * h * inter + heads * attention)


def test_big_bird_block_sparse_flops_by_hand():
    # bigbird-roberta-base (block 64, 3 random blocks) runs block-sparse attention past (5 + 2·3)·64 = 704 tokens.
    # B = 1, L = 768: 12 blocks. Heads: the pooler (2·H² on one token), the MLM head (transform 2·L·H², decoder
    # 2·L·H·V), next-sentence prediction (2·H·2).
    h, i, v, heads = 768, 3072, 50358, 12
    layer = bigbird_sparse_layer_flops(1, 768, h, heads, i, 64, 3)
    attention = 2 * 4 * 64 * 768 + 8 * 64 * 64 * 7 + 4 * 8 * 64 * 64 * 8  # per head of 64: globals, seconds, 8 middle
    assert layer == 4 * 2 * 768 * h * h + 2 * 2 * 768 * h * i + 12 * 64 * attention
    got = step(bigbird_base(), n=768)
    assert got.forward == 12 * layer + 2 * h * h + 2 * 768 * h * h + 2 * 768 * h * v + 2 * h * 2
    # Everything trains: every product has two factors needing a gradient, so the backward is twice the forward.
    assert got.backward == 2 * got.forward
    # Full attention at 768 would cost 2 · 2·L·L·H per layer; the sparse pattern is cheaper.
    full = 4 * 2 * 768 * h * h + 2 * 2 * 768 * h * i + 2 * 2 * 768 * 768 * h
    assert layer < full


def test_big_bird_pads_to_the_block_size():
    # L = 705 is padded to 768 (a multiple of 64) before the embeddings: the layers cost what 768 tokens cost,
    # the heads after the unpad see 705 tokens.
    h, i, v = 768, 3072, 50358
    layer = bigbird_sparse_layer_flops(1, 768, h, 12, i, 64, 3)
    got = step(bigbird_base(), n=705)
    assert got.forward == 12 * layer + 2 * h * h + 2 * 705 * h * h + 2 * 705 * h * v + 2 * h * 2
    # At 704 and below transformers switches to full attention by itself (no padding).
    full = 4 * 2 * 704 * h * h + 2 * 2 * 704 * h * i + 2 * 2 * 704 * 704 * h
    assert step(bigbird_base(), n=704).forward == 12 * full + 2 * h * h + 2 * 704 * h * h + 2 * 704 * h * v + 2 * h * 2


def test_big_bird_block_sparse_small_case_by_hand():
    # A tiny block-sparse BigBirdModel without pooler: H = 4 (2 heads of 2), I = 6, block 2, 1 random block,
    # 1 layer; B = 2, L = 16 (> (5 + 2)·2 = 14: 8 blocks). Attention per head: 2·(2·2·2·16·2) for the
    # global rows, 2·(2·2·2·5·2·2) for the second rows, 4 middle blocks · 2·2·2·6·2·2.
    config = {"model_type": "big_bird", "vocab_size": 10, "hidden_size": 4, "num_attention_heads": 2,
              "num_hidden_layers": 1, "intermediate_size": 6, "max_position_embeddings": 32, "block_size": 2,
              "num_random_blocks": 1}
    inv = build(config, "BigBirdModel", False)
    attention = 2 * (2 * 2 * 2 * 16 * 2) + 2 * (2 * 2 * 2 * 5 * 2 * 2) + 4 * (2 * 2 * 2 * 6 * 2 * 2)
    assert attention == 512 + 320 + 768
    layer = 2 * (4 * 2 * 16 * 4 * 4 + 2 * 2 * 16 * 4 * 6 + 2 * attention)
    assert step(inv, b=2, n=16).forward == layer == bigbird_sparse_layer_flops(2, 16, 4, 2, 6, 2, 1)
