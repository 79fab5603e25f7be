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
    assert set(d["memory"]) == {"weights", "gradients", "optimizer", "activations"}
    assert all(isinstance(v, int) for v in [*d["flops"].values(), *d["memory"].values()])


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
                             "--optimizer", "sgd-momentum", "--dtype", "bf16", "--grad-checkpointing")
    assert code == 0 and err == ""
    c = json.loads(out)["costs"]
    assert c["batch"] == 1 and c["seq_len"] == 128 and c["dtype"] == "bf16" and c["optimizer"] == "sgd-momentum"
    assert c["grad_checkpointing"] is True
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
                                     "--format", fmt, "--lang", lang)
            assert code == 0 and err == "", (lang, fmt)
            assert word in out and "22,348,431,360" in out and "114,456,576" in out, (lang, fmt)


def test_cli_bad_step_options_are_coded_in_both_languages():
    bad = (
        (("--batch", "0", "--seq-len", "3"), "costs_not_positive"),
        (("--batch", "2", "--seq-len", "-1"), "costs_not_positive"),
        (("--batch", "2"), "costs_not_positive"),
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

    r = api.compute_costs({"preset": "bert-base-uncased", "batch": "1", "seq_len": "128", "optimizer": "sgd"})
    assert r["ok"] and r["costs"]["flops"]["forward"] == 22_348_431_360 and r["costs"]["memory"]["optimizer"] == 0
    assert r["query"] == {"batch": "1", "seq_len": "128", "optimizer": "sgd"}
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
