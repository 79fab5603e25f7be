"""T5's, umT5's published config.json files, pasted whole into the CLI, against transformers 5.23's encoder class.

A T5 checkpoint's own config.json names the encoder-decoder (``T5ForConditionalGeneration``); the calculator
counts the encoder class (``Family.encoder_of``) and says so in a note. Diffusion pipelines save the encoder
alone (``T5EncoderModel``); ComfyUI's copies carry ``is_gated_act`` and ``dense_act_fn`` instead of
``feed_forward_proj``, which transformers applies over what ``feed_forward_proj`` (default "relu") implies.
"""
from __future__ import annotations

import pytest

from .published import check_published, cli_json

#: FLUX.1's T5-XXL text encoder,
#: https://huggingface.co/black-forest-labs/FLUX.1-dev/blob/main/text_encoder_2/config.json (as diffusers saves
#: google/t5-v1_1-xxl's encoder; the text as quoted by a FLUX training script's cache step).
FLUX_TEXT_ENCODER_2 = {
    "architectures": ["T5EncoderModel"], "classifier_dropout": 0.0, "d_ff": 10240, "d_kv": 64, "d_model": 4096,
    "decoder_start_token_id": 0, "dense_act_fn": "gelu_new", "dropout_rate": 0.1, "eos_token_id": 1,
    "feed_forward_proj": "gated-gelu", "initializer_factor": 1.0, "is_encoder_decoder": True, "is_gated_act": True,
    "layer_norm_epsilon": 1e-06, "model_type": "t5", "num_decoder_layers": 24, "num_heads": 64, "num_layers": 24,
    "output_past": True, "pad_token_id": 0, "relative_attention_max_distance": 128,
    "relative_attention_num_buckets": 32, "tie_word_embeddings": False, "torch_dtype": "float16",
    "transformers_version": "4.41.2", "use_cache": True, "vocab_size": 32128,
}
#: https://huggingface.co/google/t5-v1_1-xxl/blob/main/config.json: the whole model's class.
T5_V1_1_XXL = {k: v for k, v in FLUX_TEXT_ENCODER_2.items()
               if k not in ("classifier_dropout", "dense_act_fn", "is_gated_act", "relative_attention_max_distance",
                            "torch_dtype", "transformers_version", "use_cache")} | {
    "architectures": ["T5ForConditionalGeneration"]}
#: ComfyUI's copy of google/umt5-xxl's (Wan 2.1's text encoder): comfyanonymous/ComfyUI
#: comfy/text_encoders/umt5_config_xxl.json @ bcd1b1c11e8b0bab917f24e460a55add0b56bf83; no architectures,
#: no feed_forward_proj (so transformers' "gated-gelu" default is overridden by is_gated_act, to the same).
COMFY_UMT5_XXL = {
    "d_ff": 10240, "d_kv": 64, "d_model": 4096, "decoder_start_token_id": 0, "dropout_rate": 0.1, "eos_token_id": 1,
    "dense_act_fn": "gelu_pytorch_tanh", "initializer_factor": 1.0, "is_encoder_decoder": True, "is_gated_act": True,
    "layer_norm_epsilon": 1e-06, "model_type": "umt5", "num_decoder_layers": 24, "num_heads": 64, "num_layers": 24,
    "output_past": True, "pad_token_id": 0, "relative_attention_num_buckets": 32, "tie_word_embeddings": False,
    "vocab_size": 256384,
}
#: The same copy's T5-XXL (comfy/text_encoders/t5_config_xxl.json): model_type t5, whose feed_forward_proj
#: default is "relu", so only is_gated_act makes it gated.
COMFY_T5_XXL = dict(COMFY_UMT5_XXL, model_type="t5", vocab_size=32128)

PUBLISHED = [
    ("FLUX.1-dev text_encoder_2", FLUX_TEXT_ENCODER_2, "T5EncoderModel"),
    ("google/t5-v1_1-xxl", T5_V1_1_XXL, "T5EncoderModel"),
    ("ComfyUI umt5_config_xxl", COMFY_UMT5_XXL, "UMT5EncoderModel"),
    ("ComfyUI t5_config_xxl", COMFY_T5_XXL, "T5EncoderModel"),
]


@pytest.mark.parametrize(("name", "config", "architecture"), PUBLISHED, ids=[p[0] for p in PUBLISHED])
def test_published_config_through_the_cli(name: str, config: dict, architecture: str) -> None:
    check_published(config, architecture)


def test_the_whole_models_config_is_counted_as_its_encoder_with_a_note() -> None:
    ours = cli_json(T5_V1_1_XXL)
    assert ours["architecture"] == "T5EncoderModel" and ours["total"] == 4_762_310_656
    codes = [n["code"] for n in ours["notes"]]
    assert "encoder_of" in codes and "T5ForConditionalGeneration" in ours["notes"][codes.index("encoder_of")]["message"]
    assert cli_json(FLUX_TEXT_ENCODER_2)["total"] == 4_762_310_656
    assert "encoder_of" not in [n["code"] for n in cli_json(FLUX_TEXT_ENCODER_2)["notes"]]


def test_comfyui_style_configs_cost_what_pytorch_measures() -> None:
    """ComfyUI's T5-XXL and umT5-XXL configs, shrunk (same keys: is_gated_act, dense_act_fn "gelu_pytorch_tanh",
    no feed_forward_proj), one training step each in bf16 with checkpointing, against PyTorch."""
    from .test_costs_reference import engine_side, torch_side

    small = {"d_model": 16, "d_ff": 24, "d_kv": 4, "num_heads": 4, "num_layers": 2, "vocab_size": 64}
    for config in (COMFY_T5_XXL, COMFY_UMT5_XXL):
        raw = {k: v for k, v in config.items() if k not in ("num_decoder_layers",)} | small
        case = {"raw": raw, "arch": "UMT5EncoderModel" if raw["model_type"] == "umt5" else "T5EncoderModel",
                "pooler": None, "batch": 2, "seq_len": 7, "dtype": "bf16", "optimizer": "adamw",
                "checkpointing": True, "plan": "none"}
        inv, plan, got = engine_side(case)
        figures = {"forward": got.forward, "backward": got.backward, "weights": got.weights,
                   "gradients": got.gradients, "optimizer": got.optimizer, "activations": got.activations}
        assert figures == torch_side(case, inv, plan), raw["model_type"]
