"""Cross-check: the engine's tensor list equals what Hugging Face transformers builds.

For every preset and every architecture of its family, and for random configs
per family, build the real model from the same config (random weights on the
meta device: nothing downloaded, nothing allocated) and compare names, shapes,
ties, trainability and the three totals. The expected side never touches
``calculator``'s counting code.
"""
from __future__ import annotations

import os
import random
from typing import Any

import pytest

from calculator import views
from calculator.build import build as engine_build
from calculator.errors import CalcError
from calculator.families import FAMILIES, Family
from calculator.presets import PRESETS

from .framework import build as hf_build
from .framework import describe

#: Every family transformers builds, as the declarations say.
HF_FAMILIES = tuple(mt for mt, f in FAMILIES.items() if f.transformers)
RANDOM_PER_FAMILY = int(os.environ.get("CROSSCHECK_RANDOM", "200"))
SEED = int(os.environ.get("CROSSCHECK_SEED", "20261122"))


def compare(raw: dict[str, Any], architecture: str, pooler: bool | None) -> str:
    """Compare one config; a config the engine rejects must be one transformers refuses to build."""
    hf_config = {k: v for k, v in raw.items() if k not in ("model_type", "architectures")}
    kwargs = {"add_pooling_layer": False} if pooler is False else {}
    try:
        inv = engine_build(raw, architecture, pooler)
    except CalcError as exc:
        with pytest.raises(Exception):
            hf_build(raw["model_type"], architecture, hf_config, **kwargs)
        return exc.code
    model = hf_build(raw["model_type"], architecture, hf_config, **kwargs)
    framework = describe(model)

    ours = [(t.name, t.shape, t.tied_to, t.trainable) for t in inv.tensors]
    theirs = [(t.name, t.shape, t.tied_to, t.trainable) for t in framework.tensors]
    assert [o[0] for o in ours] == [t[0] for t in theirs], "names / order differ"
    assert ours == theirs
    # The module kind LoRA and num_parameters(exclude_embeddings=True) rely on: nn.Linear, nn.Embedding, nn.Conv1d.
    kinds = [(t.name, t.module if t.module in ("linear", "embedding", "conv1d") else "") for t in inv.tensors]
    assert kinds == [(t.name, t.module) for t in framework.tensors]
    assert inv.total == framework.total
    assert inv.trainable == framework.trainable
    assert inv.state_dict_total == framework.state_dict_total
    assert views.num_parameters(inv) == model.num_parameters()
    assert views.num_parameters(inv, exclude_embeddings=True) == model.num_parameters(exclude_embeddings=True)
    return "ok"


PRESET_CASES = [
    (name, arch.name)
    for name, preset in PRESETS.items()
    if preset.config["model_type"] in HF_FAMILIES
    for arch in FAMILIES[preset.config["model_type"]].architectures
]


@pytest.mark.parametrize(("preset", "architecture"), PRESET_CASES)
def test_presets_match_transformers(preset: str, architecture: str) -> None:
    arch = FAMILIES[PRESETS[preset].config["model_type"]].architecture(architecture)
    assert arch is not None
    raw = dict(PRESETS[preset].config)
    if arch.labels_must_be is not None:
        raw["num_labels"] = arch.labels_must_be
    raw.update(arch.requires)  # ReformerForMaskedLM of the causal checkpoints: their sizes, is_decoder false
    assert compare(raw, architecture, None) == "ok"


@pytest.mark.parametrize(
    "model_type", [mt for mt in HF_FAMILIES if FAMILIES[mt].architectures[0].pooler is None]
)
def test_base_model_without_pooler(model_type: str) -> None:
    family = FAMILIES[model_type]
    assert compare(with_layers(family, {"model_type": model_type}, 2), family.base, False) == "ok"


def random_config(rng: random.Random, family: Family) -> dict[str, Any]:
    """Values drawn from each field's declared ``sample`` range, then the family's own ``sample`` hook.

    Some keys are left out so that transformers' defaults are exercised too; the
    label count is sometimes given only through ``id2label``, as fine-tuned configs do.
    """
    config: dict[str, Any] = {"model_type": family.model_type}
    for f in family.fields:
        if f.sample is None or rng.random() < 0.15:
            continue
        if f.kind == "bool":
            config[f.key] = rng.random() < 0.5
        elif f.kind == "flags":
            config[f.key] = [c for c in f.choices if rng.random() < 0.5]
        elif f.kind == "choice":
            config[f.key] = rng.choice(f.choices)
        else:
            config[f.key] = rng.randint(*f.sample)
    if family.sample is not None:
        family.sample(rng, config)
    if "num_labels" in config and rng.random() < 0.3:
        config["id2label"] = {str(i): f"L{i}" for i in range(config.pop("num_labels"))}
    return config


@pytest.mark.parametrize("model_type", HF_FAMILIES)
def test_random_configs_match_transformers(model_type: str) -> None:
    """RANDOM_PER_FAMILY random configs of one family, each compared on its own.

    One test per family, not one per config: 5,000 tests of ~20 ms each spent a
    good part of their time in pytest's and pytest-xdist's per-test work. Every
    config is still compared and every failing one is reported (its index, config,
    architecture and what differed), not only the first.
    """
    family = FAMILIES[model_type]
    failures = []
    for index in range(RANDOM_PER_FAMILY):
        rng = random.Random(f"{SEED}-{model_type}-{index}")
        raw = random_config(rng, family)
        arch = rng.choice(family.architectures)
        pooler = rng.choice([None, False]) if arch.pooler is None else None
        try:
            outcome = compare(raw, arch.name, pooler)
        except (Exception, pytest.fail.Exception) as exc:  # noqa: BLE001 - reported with its config below
            failures.append(f"[{model_type}-{index}] {arch.name} pooler={pooler} {raw}\n    {exc}")
            continue
        OUTCOMES[outcome] = OUTCOMES.get(outcome, 0) + 1
    assert not failures, f"{len(failures)} of {RANDOM_PER_FAMILY} random configs differ:\n" + "\n".join(failures[:10])


OUTCOMES: dict[str, int] = {}


def test_random_configs_are_mostly_buildable() -> None:
    """Guard against a generator that only produces rejected configs (which would check little)."""
    if not OUTCOMES:
        pytest.skip("random cases not run in this session")
    assert OUTCOMES.get("ok", 0) >= 0.8 * sum(OUTCOMES.values()), OUTCOMES


def with_layers(family: Family, raw: dict[str, Any], layers: int) -> dict[str, Any]:
    """``raw`` with ``num_hidden_layers`` where the family reads that key, and an explicit ``vocab_size``.

    Funnel sets its layers with ``block_sizes`` and refuses the key (so do transformers and the
    engine), so it is left out there. The vocabulary is written as every config.json writes it:
    EsmConfig has no default vocabulary."""
    if family.field("text_num_hidden_layers") is not None:
        # A composite (ModernVBERT, UltraVBERT): its sizes live in the nested sub-configs, so the layers and any
        # size given flat go there, as config.json nests them (else every sub-config keeps its full default).
        text = {k: v for k, v in raw.items() if family.field("text_" + k) is not None}
        vision = {k: v for k, v in raw.items() if family.field("vision_" + k) is not None}
        rest = {k: v for k, v in raw.items() if k not in text and k not in vision and k != "num_hidden_layers"}
        return dict(rest, text_config=dict(text, num_hidden_layers=layers),
                    vision_config=dict(vision, num_hidden_layers=layers))
    vocab = family.field("vocab_size")
    if vocab is not None and "vocab_size" not in raw:
        raw = dict(raw, vocab_size=vocab.default)
    if family.field("num_hidden_layers") is not None or "num_hidden_layers" in family.aliases:
        return dict(raw, num_hidden_layers=layers)
    return {k: v for k, v in raw.items() if k != "num_hidden_layers"}
