"""Every error code the page can produce goes in a slot the page has (issue 31, item 4).

An error names its inputs where it is raised; ``calculator.page.fields.error_dict`` turns
them into ``slot`` (the id of the element the message goes in) and ``marks`` (the inputs
marked invalid), and the page's script puts the message there. This test makes one
request per code, as the page sends it (a link's parameters, a pasted config.json, or the
"Training cost" panel's keys beside a model's), and checks the slot it is given against
the one written out here and against the markup: the element exists in the page as
built or in the request family's form. The browser (tests/browser/test_calculator_errors.py)
then needs one link per kind of slot, not one per code.

Standard library only, no fixtures: it runs inside Pyodide too.
"""
from __future__ import annotations

import json

from calculator import api
from calculator.errors import MESSAGES
from calculator.families import FAMILIES
from calculator.page import form
from calculator.presets import PRESETS

GENERAL = "calc-general-error"
PANEL = "calc-costs-error"
P = {"batch": "1", "seq_len": "8"}
#: Families whose step is not matched under autocast and not refused in their own words there (none may be left).
NOT_UNDER_AUTOCAST = [mt for mt, f in FAMILIES.items() if f.costs is not None and not f.costs.autocast
                      and getattr(f.costs, "autocast_fails", None) is None]
LORA = {"lora_r": "8"}

#: code → (request, slot). A request is {"params": {...}} (a link or the form), {"config": "<json>"} (the
#: paste box) or {"params": {...}, "costs": {...}} (the panel open); the slot is written out by hand.
CASES: dict[str, tuple[dict, str]] = {
    # The model's inputs: the page's own menus and fields.
    "unknown_preset": ({"params": {"preset": "bert-huge"}}, "calc-preset-error"),
    "unknown_model_type": ({"params": {"model_type": "gpt2"}}, "calc-model_type-error"),
    "unknown_architecture": ({"params": {"architecture": "BertForTranslation"}}, "calc-architecture-error"),
    "not_boolean": ({"params": {"pooler": "maybe"}}, "calc-pooler-error"),
    "pooler_fixed": ({"params": {"architecture": "BertForMaskedLM", "pooler": "1"}}, "calc-pooler-error"),
    "label_too_long": ({"params": {"label": "x" * 101}}, "calc-label-error"),
    "bad_fraction": ({"params": {"active_fraction": "2"}}, "calc-active_fraction-error"),
    # A family's fields (ids carry the family), one or two of them named by the rule that fails.
    "not_integer": ({"params": {"vocab_size": "abc"}}, "calc-bert-vocab_size-error"),
    "negative": ({"params": {"num_hidden_layers": "-5"}}, "calc-bert-num_hidden_layers-error"),
    "zero": ({"params": {"hidden_size": "0"}}, "calc-bert-hidden_size-error"),
    "too_large": ({"params": {"model_type": "albert", "num_hidden_groups": "100", "inner_group_num": "100"}},
                  "calc-albert-num_hidden_groups-error"),
    "heads_not_divisor": ({"params": {"hidden_size": "770"}}, "calc-bert-num_attention_heads-error"),
    "vocab_mismatch": ({"params": {"model_type": "transformer", "n_src_vocab": "100", "n_tgt_vocab": "200"}},
                       "calc-transformer-n_tgt_vocab-error"),
    "padding_idx": ({"params": {"model_type": "roberta", "vocab_size": "1"}}, "calc-roberta-vocab_size-error"),
    "labels_fixed": ({"params": {"model_type": "distilbert", "architecture": "DistilBertForQuestionAnswering",
                                 "num_labels": "3"}}, "calc-distilbert-num_labels-error"),
    # No input to blame: the page-level slot.
    "total_too_large": ({"params": {"vocab_size": "9999999", "hidden_size": "9999996"}}, GENERAL),
    "lora_family": ({"params": {"model_type": "keras-bert", **LORA}}, GENERAL),
    # A pasted config.json: its errors stay with the paste box.
    "invalid_json": ({"config": "{"}, "calc-config-error"),
    "not_an_object": ({"config": "[1, 2]"}, "calc-config-error"),
    "derived_key": ({"config": '{"model_type": "funnel", "num_hidden_layers": 12}'}, "calc-config-error"),
    # The planner's fields (the CLI's LoRA and freezing options).
    "lora_rank": ({"params": {"lora_r": "0"}}, "calc-lora_r-error"),
    "lora_bias": ({"params": {**LORA, "lora_bias": "some"}}, "calc-lora_bias-error"),
    "lora_task_type": ({"params": {**LORA, "peft_task_type": "CAUSAL_LM"}}, "calc-peft_task_type-error"),
    "lora_targets_required": ({"params": {"model_type": "distilbert", **LORA}}, "calc-lora_targets-error"),
    "lora_target_missing": ({"params": {**LORA, "lora_targets": "nope"}}, "calc-lora_targets-error"),
    "lora_target_unsupported": ({"params": {**LORA, "lora_targets": "LayerNorm"}}, "calc-lora_targets-error"),
    "lora_no_linear": ({"params": {"model_type": "deberta", "num_hidden_layers": "0", **LORA,
                                   "lora_targets": "all-linear"}}, "calc-lora_targets-error"),
    "lora_conv_groups": ({"params": {"preset": "squeezebert/squeezebert-uncased", "lora_r": "3",
                                     "lora_targets": "query"}}, "calc-lora_r-error"),
    "lora_target_saved": ({"params": {**LORA, "lora_targets": "classifier", "modules_to_save": "classifier",
                                      "architecture": "BertForSequenceClassification"}}, "calc-modules_to_save-error"),
    "modules_to_save_missing": ({"params": {**LORA, "lora_targets": "query", "modules_to_save": "nope"}},
                                "calc-modules_to_save-error"),
    "modules_to_save_nested": ({"params": {**LORA, "lora_targets": "query", "modules_to_save": "pooler,pooler.dense"}},
                               "calc-modules_to_save-error"),
    "module_name": ({"params": {**LORA, "modules_to_save": "(.*.*)Z"}}, "calc-modules_to_save-error"),
    "freeze_layers": ({"params": {"freeze_layers": "13"}}, "calc-freeze_layers-error"),
    "bad_value": ({"params": {"freeze": "everything"}}, "calc-freeze-error"),
    "plan_conflict": ({"params": {**LORA, "freeze": "embeddings"}}, "calc-lora_r-error"),
    # The "Training cost" panel: beside its own fields...
    "costs_not_positive": ({"params": {}, "costs": {"batch": "0", "seq_len": "8"}}, "calc-batch-error"),
    "costs_seq_too_long": ({"params": {}, "costs": {"batch": "1", "seq_len": "513"}}, "calc-seq_len-error"),
    "costs_dtype": ({"params": {}, "costs": {**P, "dtype": "fp16"}}, "calc-dtype-error"),
    "costs_optimizer": ({"params": {}, "costs": {**P, "optimizer": "adam"}}, "calc-optimizer-error"),
    "costs_no_checkpointing": ({"params": {"preset": "albert-base-v2"}, "costs": {**P, "ckpt": "1"}}, "calc-ckpt-error"),
    "costs_mixed_precision": ({"params": {}, "costs": {**P, "mixed_precision": "fp16"}}, "calc-mixed_precision-error"),
    "costs_autocast_dtype": ({"params": {}, "costs": {**P, "dtype": "bf16", "mixed_precision": "bf16"}},
                             "calc-mixed_precision-error"),
    "costs_attention": ({"params": {}, "costs": {**P, "attention": "flash"}}, "calc-attention-error"),
    "costs_no_sdpa": ({"params": {"preset": "microsoft/deberta-v3-base"}, "costs": {**P, "attention": "sdpa"}},
                      "calc-attention-error"),
    # ...and its own slot for the step's refusals of a model, a class or a plan.
    "costs_keras": ({"params": {"model_type": "keras-bert"}, "costs": P}, PANEL),
    "costs_seq2seq": ({"params": {"model_type": "transformer"}, "costs": P}, PANEL),
    "costs_architecture": ({"params": {"architecture": "BertForMultipleChoice"}, "costs": P}, PANEL),
    "costs_lora_embedding": ({"params": {"lora_r": "4", "lora_targets": "word_embeddings,query"}, "costs": P}, PANEL),
    "costs_lora_conv": ({"params": {"model_type": "convbert", "lora_r": "768", "lora_targets": "depthwise"},
                         "costs": P}, PANEL),
    "costs_nothing_trainable": ({"params": {"freeze": "all_but_head", "freeze_layers": "12"}, "costs": P}, PANEL),
    "costs_hidden_act": ({"params": {"hidden_act": "silu"}, "costs": P}, PANEL),
    "costs_step_value": ({"params": {"attention_probs_dropout_prob": "1"}, "costs": P}, PANEL),
    "costs_checkpointing_fails": ({"params": {"preset": "microsoft/deberta-v3-base"},
                                   "costs": {**P, "ckpt": "reentrant"}}, PANEL),
    "costs_checkpointing_mode": ({"params": {}, "costs": {**P, "ckpt": "maybe"}}, "calc-ckpt-error"),
    "costs_forward_fails": ({"params": {"preset": "microsoft/deberta-v3-base", "num_hidden_layers": "0"}, "costs": P},
                            PANEL),
    "costs_data_dependent": ({"params": {"preset": "allenai/longformer-base-4096",
                                         "architecture": "LongformerForQuestionAnswering"}, "costs": P}, PANEL),
    "costs_longformer_no_layers": ({"params": {"model_type": "longformer", "num_hidden_layers": "0"}, "costs": P},
                                   PANEL),
    "costs_block_padding": ({"params": {"preset": "google/bigbird-roberta-base", "max_position_embeddings": "710"},
                             "costs": {"batch": "1", "seq_len": "705"}}, PANEL),
    "costs_qa_token_types": ({"params": {"model_type": "big_bird", "architecture": "BigBirdForQuestionAnswering",
                                         "type_vocab_size": "1"}, "costs": {"batch": "1", "seq_len": "2"}}, PANEL),
    "costs_esm_padding": ({"params": {"model_type": "esm", "position_embedding_type": "rotary"}, "costs": P}, PANEL),
    "costs_esm_mask_token": ({"params": {"model_type": "esm", "position_embedding_type": "rotary", "pad_token_id": "1",
                                         "token_dropout": "true"}, "costs": P}, PANEL),
    "costs_rotary_odd_head": ({"params": {"model_type": "roformer", "hidden_size": "6", "num_attention_heads": "2",
                                          "embedding_size": "6"}, "costs": P}, PANEL),
    "costs_even_kernel": ({"params": {"model_type": "convbert", "conv_kernel_size": "4"}, "costs": P}, PANEL),
    "costs_no_ffn": ({"params": {"model_type": "mobilebert", "num_feedforward_networks": "0"}, "costs": P}, PANEL),
    "costs_widths": ({"params": {"model_type": "mobilebert", "true_hidden_size": "6"}, "costs": P}, PANEL),
    "costs_funnel_empty_block": ({"params": {"model_type": "funnel", "block_sizes": "1|0|1"}, "costs": P}, PANEL),
    "costs_funnel_short": ({"params": {"model_type": "funnel"}, "costs": {"batch": "1", "seq_len": "2"}}, PANEL),
    "costs_too_large": ({"params": {"hidden_size": "771", "num_attention_heads": "3"},
                         "costs": {"batch": "999999", "seq_len": "511"}}, PANEL),
    "costs_funnel_decoder_input": ({"params": {"model_type": "funnel", "block_sizes": ""}, "costs": P}, PANEL),
    "costs_xmod_language": ({"params": {"model_type": "xmod"}, "costs": P}, PANEL),
    "costs_cuda_kernel": ({"params": {"model_type": "mra"}, "costs": P}, PANEL),
    "costs_reformer_length": ({"params": {"model_type": "reformer"}, "costs": P}, PANEL),
    "costs_nystrom_length": ({"params": {"model_type": "nystromformer", "num_landmarks": "2",
                                         "segment_means_seq_len": "4"}, "costs": P}, PANEL),
    "costs_kv_heads": ({"params": {"model_type": "eurobert", "hidden_size": "64", "num_attention_heads": "4",
                                   "num_key_value_heads": "3"}, "costs": P}, PANEL),
    "costs_esmc_head_dim": ({"params": {"model_type": "esmc", "hidden_size": "96", "num_attention_heads": "3",
                                        "head_dim": "30"}, "costs": P}, PANEL),
    "costs_xmod_no_layers": ({"params": {"model_type": "xmod", "num_hidden_layers": "0", "default_language": "en_XX"},
                              "costs": P}, PANEL),
    # The panel's inference mode (calculator/views/embed.py; tests/unit/test_embed_mode.py).
    "costs_mode": ({"params": {}, "costs": {**P, "mode": "bogus"}}, "calc-mode-error"),
    "costs_tflops": ({"params": {}, "costs": {**P, "mode": "inference", "tflops": "x"}}, "calc-tflops-error"),
    "costs_embed_too_large": ({"params": {}, "costs": {**P, "mode": "inference", "passages": "999999999999"}},
                              "calc-passages-error"),
    "costs_inference_plan": ({"params": {"lora_r": "8"}, "costs": {**P, "mode": "inference"}}, PANEL),
}

#: Codes the page cannot produce, and why (each is proven where it can be raised).
NOT_FROM_THE_PAGE: dict[str, str] = {
    # Every family without a cost model says why in its own words (costs_keras, costs_seq2seq).
    "costs_family": "no family is left without a cost model and without its own refusal; tests/unit/test_costs.py",
    "costs_sdpa_not_modelled": "every family whose classes have SDPA models it now (T5's and UltraBERT's too); "
    "tests/crosscheck/test_costs_sdpa_reference.py::test_sdpa_families_are_the_classes_that_support_it",
    # Longformer's per-layer attention_window is neither a field nor a link key: a pasted config's panel
    # is computed from the canonical link, which has every layer at the family's window.
    "costs_longformer_small_window": "attention_window is not on the page; CLI only (tests/unit/test_costs_long_inputs.py)",
    "costs_longformer_window": "attention_window is not on the page; CLI only (tests/unit/test_costs_long_inputs.py)",
    # The CLI's alone: its coded line for a MemoryError (the page's watchdog restarts its worker instead)...
    "out_of_memory": "the CLI's alone; tests/unit/test_reliability_bounds.py",
    # ...and anything that is not a CalcError: no input reaches it by construction (test_api.py forces one).
    "internal": "no input reaches it; tests/unit/test_api.py",
    # The peak's note when no exact figure is proven (a note in the panel, never an error)...
    "peak_not_modelled": "a note, not an error; tests/unit/test_peak.py",
    # ...and the memory budget's, the CLI's --fit-gib alone so far (its slot: options.FIT_GIB.codes).
    "peak_budget": "the CLI's --fit-gib; tests/unit/test_peak.py",
    "peak_budget_below_weights": "the CLI's --fit-gib; tests/unit/test_peak.py",
    # The CLI's --inference with a training option (its slot: options.INFERENCE.codes).
    "costs_inference_option": "the CLI's --inference; tests/unit/test_inference.py",
}
if NOT_UNDER_AUTOCAST:  # a family the page can send under autocast that is not matched there
    CASES["costs_autocast_family"] = ({"params": {"model_type": NOT_UNDER_AUTOCAST[0]},
                                       "costs": {**P, "mixed_precision": "bf16"}}, "calc-mixed_precision-error")
else:
    NOT_FROM_THE_PAGE["costs_autocast_family"] = (
        "every family's step is matched under autocast or refused in its own words; "
        "tests/unit/test_costs_autocast.py::test_a_family_not_checked_under_autocast_is_refused")
# A model read from the Hub: the CLI's --model (its slot: options.MODEL.codes, tests/unit/test_options.py).
NOT_FROM_THE_PAGE.update({code: "the CLI's --model: tests/hub/" for code in MESSAGES if code.startswith("hub_")})


def answer(request: dict) -> dict:
    """The page's answer to ``request`` through the worker's one call (its panel's, if the panel was open)."""
    out = json.loads(api.compute_json(json.dumps(request)))
    if out.get("ok") and "costs" in request:
        return out["costs"]
    return out


_MARKUP: dict[str, str] = {}


def markup(model_type: str) -> str:
    """The page as built (its own fields, the panel, the general slots) and the form with ``model_type``'s fields."""
    if "page" not in _MARKUP:
        _MARKUP["page"] = api.render_widget("en")
    if model_type not in _MARKUP:
        _MARKUP[model_type] = form.render_form({"model_type": model_type}, "en")
    return _MARKUP["page"] + _MARKUP[model_type]


def test_every_code_is_placed_or_listed():
    assert set(CASES) | set(NOT_FROM_THE_PAGE) == set(MESSAGES)
    assert not set(CASES) & set(NOT_FROM_THE_PAGE)


def test_every_code_goes_in_its_slot_and_the_slot_is_on_the_page():
    wrong = []
    for code, (request, slot) in CASES.items():
        out = answer(request)
        assert not out.get("ok"), (code, request)
        error = out["error"]
        if (error["code"], error["slot"]) != (code, slot):
            wrong.append((code, error["code"], error["slot"], slot))
            continue
        params = request.get("params", {})
        preset = PRESETS.get(params.get("preset", ""))
        page = markup(params.get("model_type") or (preset.config["model_type"] if preset else "bert"))
        assert f'id="{slot}"' in page, (code, slot)
        for mark in error["marks"]:
            assert f'id="{mark}"' in page, (code, mark)
        # An input's slot is the one described by, and named after, the first input it marks.
        if slot not in (GENERAL, PANEL):
            assert slot == error["marks"][0] + "-error", (code, error["marks"])
        else:
            assert error["marks"] == [], code
    assert wrong == []


def test_an_error_about_two_inputs_marks_both_and_speaks_beside_the_first():
    error = answer({"params": {"hidden_size": "770"}})["error"]
    assert error["marks"] == ["calc-bert-num_attention_heads", "calc-bert-hidden_size"]
    error = answer({"params": {"model_type": "albert", "num_hidden_groups": "100", "inner_group_num": "100"}})["error"]
    assert error["marks"] == ["calc-albert-num_hidden_groups", "calc-albert-inner_group_num"]
    error = answer({"params": {"model_type": "transformer", "n_src_vocab": "100", "n_tgt_vocab": "200"}})["error"]
    assert error["marks"] == ["calc-transformer-n_tgt_vocab", "calc-transformer-n_src_vocab"]
    # A family field not on the form (pad_token_id where the form has none) leaves only the one that is.
    error = answer({"params": {"model_type": "modernbert", "vocab_size": "3"}})["error"]
    assert error["marks"] == ["calc-modernbert-vocab_size", "calc-modernbert-pad_token_id"]
    error = answer({"params": {"model_type": "roberta", "vocab_size": "1"}})["error"]
    assert error["marks"] == ["calc-roberta-vocab_size"]


def test_a_family_error_from_a_link_without_model_type_uses_the_presets_family():
    # The page shows the preset's family: its field is where the message goes.
    error = answer({"params": {"preset": "roberta-base", "hidden_size": "770"}})["error"]
    assert error["slot"] == "calc-roberta-num_attention_heads-error"
