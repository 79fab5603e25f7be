"""The data behind the notes of issue 35 (reader H1, H5), checked against transformers 5.23 itself.

* ``Family.default_attention``: the attention transformers builds each class with when nothing is asked for
  (``config._attn_implementation`` of the built model), for every class of every family;
* ``Family.ignored_keys``: ``position_embedding_type`` is read by no stock class of those families (setting it
  changes no tensor: the count stands for the stock class), and ``add_cross_attention`` is read and does add
  tensors (the note's claim), while the calculator's count is the stock class's without it;
* ``views.notes.KNOWN_KEYS``: with the keys a family reads and its ignored keys, they cover every key of the
  family's transformers config class, so a key named as "not read" really is not; and no such key of the
  config class, given another value, changes a tensor (so none is a key the calculator silently ignores);
* jina-embeddings-v3's config (tests/unit/test_reader_review_2.py) builds 567,754,752 in XLMRobertaModel.
"""
from __future__ import annotations

import random
from typing import Any

import pytest

from calculator.build import build as engine_build
from calculator.families import FAMILIES
from calculator.views.notes import KNOWN_KEYS, _read_keys

from .framework import build as hf_build
from .framework import describe
from .test_transformers import random_config

HF_FAMILIES = sorted(k for k, f in FAMILIES.items() if f.transformers)


def _small(model_type: str) -> dict[str, Any]:
    """A small valid config of the family (two layers), drawn as the cross-check draws its configs."""
    family = FAMILIES[model_type]
    for attempt in range(50):
        raw = random_config(random.Random(f"notes-{model_type}-{attempt}"), family)
        if family.field("num_hidden_layers") is not None:
            raw["num_hidden_layers"] = 2
        try:
            engine_build(raw, family.base)
        except Exception:  # noqa: BLE001 - a draw the engine refuses: draw again
            continue
        return raw
    raise AssertionError(f"no small config for {model_type}")


def _shapes(model_type: str, architecture: str, config: dict[str, Any]) -> list[tuple[str, tuple[int, ...]]]:
    model = hf_build(model_type, architecture, {k: v for k, v in config.items() if k != "model_type"})
    return [(t.name, t.shape) for t in describe(model).tensors]


@pytest.mark.parametrize("model_type", HF_FAMILIES)
def test_default_attention_is_transformers_own(model_type: str) -> None:
    family = FAMILIES[model_type]
    config = {k: v for k, v in _small(model_type).items() if k != "model_type"}
    for arch in family.architectures:
        if arch.labels_must_be is not None:
            config = dict(config, num_labels=arch.labels_must_be)
        model = hf_build(model_type, arch.name, dict(config, **dict(arch.requires)))
        assert model.config._attn_implementation == family.default_attention, (model_type, arch.name)


@pytest.mark.parametrize("model_type", sorted(k for k in HF_FAMILIES if FAMILIES[k].ignored_keys))
def test_ignored_keys_are_what_the_note_says(model_type: str) -> None:
    family = FAMILIES[model_type]
    raw = _small(model_type)
    plain = _shapes(model_type, family.base, raw)
    ours = [(t.name, t.shape) for t in engine_build(raw, family.base).tensors]
    for item in family.ignored_keys:
        if item.key == "position_embedding_type":
            # transformers 5.23 does not read it: the stock class is the same, and so is our count.
            for value in ("relative_key", "relative_key_query", "rotary"):
                assert _shapes(model_type, family.base, dict(raw, position_embedding_type=value)) == plain
                assert [(t.name, t.shape) for t in engine_build(dict(raw, position_embedding_type=value),
                                                                  family.base).tensors] == ours
        elif item.key == "add_cross_attention":
            # transformers adds tensors (the cross-attention blocks); the count here is the class without them.
            crossed = _shapes(model_type, family.base, dict(raw, add_cross_attention=True, is_decoder=True))
            assert len(crossed) > len(plain) and any("crossattention" in n for n, _ in crossed), model_type
            assert [(t.name, t.shape) for t in engine_build(dict(raw, add_cross_attention=True, is_decoder=True),
                                                             family.base).tensors] == ours
        elif item.key == "num_decoder_layers":
            # T5's encoder classes: the decoder's depth changes none of their tensors (and not our count); the
            # encoder-decoder AutoModel builds has that many decoder blocks (the note's claim).
            import transformers

            deeper = dict(raw, num_decoder_layers=3)
            assert _shapes(model_type, family.base, deeper) == plain
            assert [(t.name, t.shape) for t in engine_build(deeper, family.base).tensors] == ours
            whole = _shapes(model_type, transformers.AutoModel._model_mapping[type(
                transformers.AutoConfig.for_model(model_type))].__name__, deeper)
            assert {n.split(".")[2] for n, _ in whole if n.startswith("decoder.block.")} == {"0", "1", "2"}
        elif item.key == "is_decoder":
            # T5's encoder classes given a decoder's config: a cross-attention block in every block (the note's
            # claim); the count here is the encoder's without them.
            layered = {k: v for k, v in raw.items() if k != "num_hidden_layers"} | {"num_layers": 2}
            crossed = _shapes(model_type, family.base, dict(layered, is_decoder=True))
            assert len(crossed) > len(_shapes(model_type, family.base, layered)), model_type
            assert any("EncDecAttention" in n for n, _ in crossed), model_type
            assert ([(t.name, t.shape) for t in engine_build(dict(layered, is_decoder=True), family.base).tensors]
                    == [(t.name, t.shape) for t in engine_build(layered, family.base).tensors])
        elif item.key in ("quant_mode", "force_dequant"):
            # I-BERT: every quantised module builds its parameters and buffers whatever these say.
            value = True if item.key == "quant_mode" else "nonlinear"
            assert _shapes(model_type, family.base, dict(raw, **{item.key: value})) == plain
            assert [(t.name, t.shape) for t in engine_build(dict(raw, **{item.key: value}),
                                                             family.base).tensors] == ours
        elif item.key == "use_tpu_fourier_optimizations":
            # FNet: with SciPy, two complex64 DFT buffers per layer join state_dict; without it, transformers 5.23's
            # fallback calls ``logging.warning``, which its logging module lacks: the build fails (P <= 4096).
            if not _has_scipy() and raw.get("max_position_embeddings", 512) <= 4096:
                with pytest.raises(AttributeError):
                    _shapes(model_type, family.base, dict(raw, use_tpu_fourier_optimizations=True))
                tpu = plain
            else:
                tpu = _shapes(model_type, family.base, dict(raw, use_tpu_fourier_optimizations=True))
            extra = [(n, s) for n, s in tpu if n not in dict(plain)]
            assert [(n, s) for n, s in tpu if n in dict(plain)] == plain
            assert all(n.rsplit(".", 1)[-1] in ("dft_mat_hidden", "dft_mat_seq") for n, _ in extra), extra
            assert bool(extra) == (_has_scipy() and tpu is not plain), extra
            assert [(t.name, t.shape) for t in engine_build(dict(raw, use_tpu_fourier_optimizations=True),
                                                             family.base).tensors] == ours
        else:
            raise AssertionError(f"no check written for ignored key {item.key}")


def _has_scipy() -> bool:
    try:
        import scipy  # noqa: F401
    except ImportError:
        return False
    return True


def _other(value: Any) -> Any:
    """Another value of the same kind, or None where there is no obvious one (a string, a list, a dict)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value / 2 if value else 0.5
    return None


@pytest.mark.parametrize("model_type", HF_FAMILIES)
def test_every_key_of_the_config_class_is_read_known_or_declared(model_type: str) -> None:
    import transformers

    family = FAMILIES[model_type]
    defaults = transformers.AutoConfig.for_model(model_type).to_dict()
    generic = set(transformers.PretrainedConfig().to_dict())
    declared = {k.key for k in family.ignored_keys}
    unread = sorted(set(defaults) - generic - _read_keys(family) - declared)
    assert set(unread) <= KNOWN_KEYS, sorted(set(unread) - KNOWN_KEYS)
    # None of them, set to another value, changes a tensor of the base class: the declaration misses nothing
    # (is_decoder alone builds the same tensors; with add_cross_attention it is the declared key above).
    raw = _small(model_type)
    plain = _shapes(model_type, family.base, raw)
    changed = []
    for key in unread:
        value = _other(defaults[key])
        if value is None or key in ("pad_token_id",):  # the padding row's index, not a shape
            continue
        try:
            # add_cross_attention builds its blocks only in a decoder (transformers raises otherwise).
            extra = {"is_decoder": True} if key == "add_cross_attention" else {}
            shapes = _shapes(model_type, family.base, dict(raw, **{key: value}, **extra))
        except Exception:  # noqa: BLE001 - a value the config class refuses builds nothing to compare
            continue
        if shapes != plain:
            changed.append(key)
    assert not changed, f"{model_type}: keys the declaration ignores change tensors: {changed}"


def test_jina_v3_is_stock_xlm_roberta_in_transformers() -> None:
    from tests.unit.test_reader_review_2 import JINA_V3

    keys = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size",
            "max_position_embeddings", "type_vocab_size", "pad_token_id", "layer_norm_eps", "position_embedding_type")
    model = hf_build("xlm-roberta", "XLMRobertaModel", {k: JINA_V3[k] for k in keys})
    assert describe(model).total == 567_754_752 == engine_build(JINA_V3).total


def test_modernvbert_top_level_classifier_bias_builds_nothing() -> None:
    """ModernVBERT's config has a classifier_bias of its own (a known key here); its heads are built from
    text_config, so the top-level value changes no tensor of any class (the base-class check above sees none)."""
    small = {"text_config": {"vocab_size": 40, "pad_token_id": 0, "hidden_size": 8, "num_hidden_layers": 1,
                             "num_attention_heads": 2, "intermediate_size": 12},
             "vision_config": {"hidden_size": 4, "intermediate_size": 6, "num_hidden_layers": 1,
                               "num_attention_heads": 2, "image_size": 8, "patch_size": 4}}
    for arch in FAMILIES["modernvbert"].architectures:
        plain = _shapes("modernvbert", arch.name, dict(small, classifier_bias=False))
        assert _shapes("modernvbert", arch.name, dict(small, classifier_bias=True)) == plain, arch.name
        with_text_bias = dict(small, text_config=dict(small["text_config"], classifier_bias=True))
        if arch.head is not None:  # the text config's own does add the heads' dense bias
            assert _shapes("modernvbert", arch.name, with_text_bias) != plain, arch.name
