"""Cross-check every count of :mod:`calculator.counts` against the library that prints it.

* ``parameters``, ``num_parameters`` (both), ``state_dict``: the real transformers model
  (meta device);
* ``save_pretrained``: transformers' own ``remove_tied_weights_from_state_dict`` (what
  ``save_pretrained`` calls before writing) on the meta model, for every case; and, for
  small models of every class that ties weights, a real ``save_pretrained`` on CPU into a
  temporary directory, its ``model.safetensors`` header read here byte by byte (8-byte
  little-endian length, then JSON): the names written and the element count;
* ``torchinfo``: ``torchinfo.summary(model, verbose=0).total_params`` of the pinned 1.8.0;
* Keras ``count_params()``: ``reference/keras_bert.json``, written by the real keras-bert.

Cases: every preset's published class, every class of each family on small configs, and
random configs of every transformers family (drawn from the families' declared ranges).
For each count the listed tensors must account for the difference exactly.
"""
from __future__ import annotations

import json
import math
import os
import random
import struct
import tempfile
import warnings
from pathlib import Path
from typing import Any

import pytest

from calculator.build import build as engine_build
from calculator.counts import reconcile, saved_names
from calculator.errors import CalcError
from calculator.families import FAMILIES
from calculator.presets import PRESETS

from .framework import build as hf_build
from .test_transformers import random_config, with_layers

pytest.importorskip("torchinfo")

HF_FAMILIES = tuple(mt for mt, f in FAMILIES.items() if f.transformers)
RANDOM_PER_FAMILY = int(os.environ.get("COUNTS_RANDOM", "10"))
SEED = int(os.environ.get("CROSSCHECK_SEED", "20261122"))
REFERENCE = Path(__file__).resolve().parent / "reference"


def hf_config(raw: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in raw.items() if k not in ("model_type", "architectures")}


def library_counts(model) -> dict[str, Any]:
    """Each count as the library computes it (nothing here reads the calculator)."""
    import torchinfo
    from transformers.modeling_utils import remove_tied_weights_from_state_dict

    state = model.state_dict()
    kept = remove_tied_weights_from_state_dict(dict(state), model)
    return {
        "parameters": sum(p.numel() for p in model.parameters()),
        "num_parameters": model.num_parameters(),
        "num_parameters_exclude_embeddings": model.num_parameters(exclude_embeddings=True),
        "state_dict": sum(t.numel() for t in state.values()),
        "save_pretrained": sum(t.numel() for t in kept.values()),
        "torchinfo": torchinfo.summary(model, verbose=0).total_params,
        "_saved_names": list(kept),
    }


def check(raw: dict[str, Any], architecture: str) -> str:
    try:
        inv = engine_build(raw, architecture)
    except CalcError as exc:
        return exc.code  # test_transformers checks that transformers refuses it too
    model = hf_build(raw["model_type"], architecture, hf_config(raw))
    theirs = library_counts(model)
    ours = {c.key: c for c in reconcile(inv)}
    assert set(ours) == set(theirs) - {"_saved_names"}
    for key, count in ours.items():
        assert count.value == theirs[key], key
        sizes = {t.name: t.count for t in inv.tensors}
        accounted = inv.total + sum(sizes[n] for n in count.added) - sum(sizes[n] for n in count.removed)
        assert accounted == count.value, (key, count.added, count.removed)
    assert list(saved_names(inv)) == theirs["_saved_names"]
    return "ok"


@pytest.mark.parametrize(
    "preset", [name for name, p in PRESETS.items() if FAMILIES[p.config["model_type"]].transformers]
)
def test_every_preset_as_published(preset: str) -> None:
    p = PRESETS[preset]
    assert check(dict(p.config), p.published_architecture) == "ok"


def small(model_type: str) -> dict[str, Any]:
    return with_layers(FAMILIES[model_type], {"model_type": model_type, "tie_word_embeddings": True}, 1)


@pytest.mark.parametrize(
    ("model_type", "architecture", "tie"),
    [(mt, a.name, tie) for mt in HF_FAMILIES for a in FAMILIES[mt].architectures for tie in (True, False)
     if tie or a.ties_embeddings],
)
def test_every_class(model_type: str, architecture: str, tie: bool) -> None:
    arch = FAMILIES[model_type].architecture(architecture)
    raw = dict(small(model_type), tie_word_embeddings=tie, num_labels=arch.labels_must_be or 3, **dict(arch.requires))
    assert check(raw, architecture) == "ok"


OUTCOMES: dict[str, int] = {}


@pytest.mark.parametrize(("model_type", "index"), [(mt, i) for mt in HF_FAMILIES for i in range(RANDOM_PER_FAMILY)])
def test_random_configs(model_type: str, index: int) -> None:
    rng = random.Random(f"{SEED}-counts-{model_type}-{index}")
    family = FAMILIES[model_type]
    raw = random_config(rng, family)
    outcome = check(raw, rng.choice(family.architectures).name)
    OUTCOMES[outcome] = OUTCOMES.get(outcome, 0) + 1


def test_random_configs_are_mostly_buildable() -> None:
    if not OUTCOMES:
        pytest.skip("random cases not run in this session")
    assert OUTCOMES.get("ok", 0) >= 0.8 * sum(OUTCOMES.values()), OUTCOMES


# ------------------------------------------------------------ a real file on disk


def safetensors_header(path: Path) -> dict[str, Any]:
    """The JSON header of a .safetensors file: 8 bytes of little-endian length, then the JSON."""
    with open(path, "rb") as fh:
        (length,) = struct.unpack("<Q", fh.read(8))
        header = json.loads(fh.read(length))
    header.pop("__metadata__", None)
    return header


TINY = {"vocab_size": 37, "hidden_size": 8, "num_attention_heads": 2, "intermediate_size": 12,
        "max_position_embeddings": 20, "num_hidden_layers": 1, "embedding_size": 4, "num_labels": 3,
        "dim": 8, "n_layers": 1, "n_heads": 2, "hidden_dim": 12, "pad_token_id": 1, "bos_token_id": 0,
        "eos_token_id": 2, "cls_token_id": 0, "sep_token_id": 2, "global_attn_every_n_layers": 1,
        "pooler_hidden_size": 8, "axial_pos_shape": [4, 5], "axial_pos_embds_dim": [4, 4], "attention_head_size": 4,
        "feed_forward_size": 12, "num_key_value_heads": 2,  # K = A: NeoMME's default K of 4 would not divide A
        # LUKE's 500,000-row entity table and Perceiver's 26 latent self-attentions of width 1,280 (their defaults):
        # tiny too, so saving and reading back their files costs what the other families' do
        "entity_vocab_size": 12, "entity_emb_size": 4, "d_latents": 8, "num_latents": 4, "num_self_attends_per_block": 1}


def tiny(model_type: str, tie: bool, labels: int | None) -> dict[str, Any]:
    raw = with_layers(FAMILIES[model_type], dict(TINY, model_type=model_type, tie_word_embeddings=tie), 1)
    if labels is not None:
        raw["num_labels"] = labels
    try:
        engine_build(raw)
    except CalcError:  # a family that needs E = H (SqueezeBERT asserts it), where ALBERT's E = 4 is refused
        raw["embedding_size"] = raw["hidden_size"]
    return raw


@pytest.mark.parametrize(
    ("model_type", "architecture", "tie"),
    [(mt, a.name, tie) for mt in HF_FAMILIES for a in FAMILIES[mt].architectures if a.ties_embeddings
     for tie in (True, False)]
    + [(mt, FAMILIES[mt].base, True) for mt in HF_FAMILIES],
)
def test_save_pretrained_writes_what_we_say(model_type: str, architecture: str, tie: bool) -> None:
    """A real save on CPU: the header's names and element count are the calculator's."""
    import torch
    import transformers

    arch = FAMILIES[model_type].architecture(architecture)
    raw = dict(tiny(model_type, tie, arch.labels_must_be), **dict(arch.requires))
    inv = engine_build(raw, architecture)
    torch.manual_seed(0)
    config = transformers.AutoConfig.for_model(model_type).__class__(**hf_config(raw))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = getattr(transformers, architecture)(config)
    with tempfile.TemporaryDirectory() as tmp:
        model.save_pretrained(tmp)
        header = safetensors_header(Path(tmp) / "model.safetensors")
    # save_pretrained writes a family's original checkpoint names where transformers has a conversion
    # mapping for it (Nomic BERT: emb_ln, a fused attn.Wqkv): transformers' own reversal, applied to our names
    from transformers.core_model_loading import revert_weight_conversion

    state = model.state_dict()
    assert set(header) == set(revert_weight_conversion(model, {n: state[n] for n in saved_names(inv)}))
    written = sum(math.prod(entry["shape"]) for entry in header.values())
    (count,) = [c for c in reconcile(inv) if c.key == "save_pretrained"]
    assert count.value == written


# ------------------------------------------------------------ other frameworks


def test_torchinfo_on_the_2018_transformer() -> None:
    """Not a transformers model: parameters, state_dict and torchinfo only; sharing flags counted as torchinfo does."""
    import torch
    import torchinfo

    from .reference.transformer2018_torch import Transformer

    for src_tgt in (True, False):
        for prj in (True, False):
            c = {"n_src_vocab": 31, "n_tgt_vocab": 31, "len_max_seq": 9, "d_word_vec": 8, "d_model": 8,
                 "d_inner": 12, "n_layers": 2, "n_head": 2, "d_k": 4, "d_v": 4,
                 "tgt_emb_prj_weight_sharing": prj, "emb_src_tgt_weight_sharing": src_tgt}
            inv = engine_build(dict(c, model_type="transformer"))
            torch.manual_seed(0)
            model = Transformer(**c)
            ours = {x.key: x.value for x in reconcile(inv)}
            assert set(ours) == {"parameters", "state_dict", "torchinfo"}
            assert ours["parameters"] == sum(p.numel() for p in model.parameters())
            assert ours["state_dict"] == sum(t.numel() for t in model.state_dict().values())
            assert ours["torchinfo"] == torchinfo.summary(model, verbose=0).total_params, (src_tgt, prj)


def test_keras_count_params() -> None:
    data = json.loads((REFERENCE / "keras_bert.json").read_text(encoding="utf-8"))
    for case in data["cases"]:
        inv = engine_build(dict(case["kwargs"], model_type="keras-bert"))
        (count,) = reconcile(inv)
        assert count.key == "keras_count_params"
        assert count.value == case["total"], case["id"]  # model.count_params() of the real model
