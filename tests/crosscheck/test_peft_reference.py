"""Cross-check the LoRA planner against the real, pinned peft (0.21.2), on transformers 5.23 models.

Every case builds the real model on PyTorch's meta device (nothing downloaded or
allocated), wraps it with ``get_peft_model(model, LoraConfig(...))`` and compares,
with what :func:`calculator.peft.lora` worked out from the inventory alone:

* ``get_nb_trainable_parameters()`` (trainable, all);
* what ``print_trainable_parameters()`` prints (stdout captured), character for character;
* the PEFT model's whole ``state_dict``: names (``base_model.model.…``), order,
  shapes, ties and ``requires_grad``; the LoRA tensors among them by name and shape.

A setting the planner rejects must be one peft rejects (``get_peft_model`` raises),
except for the planner's two deliberate extra checks (a target or modules_to_save
name that matches nothing while others do), tested on their own below.

Plans are drawn at random: targets from the *real* model's ``nn.Linear`` and ``nn.Conv1d``
(and now and then ``nn.Embedding``) module names, never from the calculator; rank, bias mode,
task type (for the classes with a head, sometimes one that does not fit) and
modules_to_save (a top-level module of the real model).
"""
from __future__ import annotations

import contextlib
import io
import math
import os
import random
import warnings
from typing import Any

import pytest

from calculator import peft as planner
from calculator.build import build as engine_build
from calculator.errors import CalcError
from calculator.families import FAMILIES
from calculator.presets import PRESETS

from .framework import build as hf_build
from .test_transformers import random_config, with_layers

pytest.importorskip("peft")

HF_FAMILIES = tuple(mt for mt, f in FAMILIES.items() if f.transformers)
RANDOM_PER_FAMILY = int(os.environ.get("PEFT_RANDOM", "12"))
SEED = int(os.environ.get("CROSSCHECK_SEED", "20261122"))
#: The planner's checks that peft does not make: a name that matches nothing (peft ignores it if another
#: one matches), and modules_to_save entries nested in each other (peft builds a copy inside a copy).
STRICTER = {"lora_target_missing", "modules_to_save_missing", "modules_to_save_nested"}


def hf_model(raw: dict[str, Any], architecture: str):
    config = {k: v for k, v in raw.items() if k not in ("model_type", "architectures")}
    return hf_build(raw["model_type"], architecture, config)


def peft_side(model, r, targets, bias, task_type, modules_to_save) -> dict[str, Any]:
    """Everything the real peft reports for one setting (the lists are copied: peft extends them in place)."""
    from peft import LoraConfig, get_peft_model

    config = LoraConfig(
        r=r,
        target_modules=list(targets) if isinstance(targets, (list, tuple)) else targets,
        bias=bias,
        task_type=task_type,
        modules_to_save=list(modules_to_save) if modules_to_save else None,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        peft_model = get_peft_model(model, config)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        peft_model.print_trainable_parameters()
    trainable, total = peft_model.get_nb_trainable_parameters()
    params = dict(peft_model.named_parameters(remove_duplicate=False))
    first: dict[int, str] = {}
    tensors = []
    for name, value in peft_model.state_dict(keep_vars=True).items():
        tied = first.setdefault(id(value), name)
        grad = bool(params[name].requires_grad) if name in params else False  # a persistent buffer: never
        tensors.append((name, tuple(value.shape), None if tied == name else tied, grad))
    return {"line": out.getvalue(), "trainable": trainable, "all": total, "tensors": tensors}


def compare(raw: dict[str, Any], architecture: str, r, targets, bias, task_type, modules_to_save, model=None) -> str:
    """One setting, both sides; returns "ok" or the planner's error code (which peft must also refuse).

    ``model``: the real model, freshly built from ``raw`` (peft changes it in place: one use only).
    """
    model = hf_model(raw, architecture) if model is None else model
    inv = engine_build(raw, architecture)
    try:
        plan = planner.lora(inv, r, targets, bias, task_type, modules_to_save)
    except CalcError as exc:
        partial = (isinstance(targets, list) and len(targets) > 1) or bool(modules_to_save)
        if not (exc.code in STRICTER and partial):  # where peft may go ahead with the names that match
            with pytest.raises(Exception):
                peft_side(model, r, targets, bias, task_type, modules_to_save)
        return exc.code
    theirs = peft_side(model, r, targets, bias, task_type, modules_to_save)
    assert plan.line + "\n" == theirs["line"]
    assert (plan.trainable, plan.all) == (theirs["trainable"], theirs["all"])
    ours = [(t.name, t.shape, t.tied_to, t.trainable) for t in plan.tensors]
    assert [o[0] for o in ours] == [t[0] for t in theirs["tensors"]], "names / order differ"
    assert ours == theirs["tensors"]
    # LoRA's own tensors (a modules_to_save copy of a LoRA layer is a copy, not an addition)
    lora_theirs = [(n, s) for n, s, _, _ in theirs["tensors"] if ".lora_" in n and ".modules_to_save." not in n]
    assert [(t.name, t.shape) for t in plan.added] == lora_theirs
    return "ok"


# ----------------------------------------------------------------- random plans


def real_modules(model, kind) -> list[str]:
    return [name for name, module in model.named_modules() if name and isinstance(module, kind)]


def random_plan(rng: random.Random, model, architecture: str) -> dict[str, Any]:
    """A setting drawn from the real model's modules (torch's view, not the calculator's)."""
    import torch.nn as nn

    linear = real_modules(model, nn.Linear)
    embedding = real_modules(model, nn.Embedding)
    conv = real_modules(model, nn.Conv1d)  # SqueezeBERT's layers, ConvBERT's separable convolutions
    roll = rng.random()
    picked: list[str] = []
    if roll < 0.12 or not linear:
        targets: Any = "all-linear"
    else:
        pool = linear + conv + (embedding if rng.random() < 0.25 else [])
        picked = rng.sample(pool, k=min(len(pool), rng.randint(1, 3)))
        # peft takes a module's last part (query), or a longer tail, or the full name
        targets = []
        for full in picked:
            parts = full.split(".")
            keep = rng.choice([1, 1, 1, 2, len(parts)])
            targets.append(".".join(parts[-keep:]))
    fits = {
        "SequenceClassification": "SEQ_CLS", "MultipleChoice": "SEQ_CLS",
        "TokenClassification": "TOKEN_CLS", "QuestionAnswering": "QUESTION_ANS",
    }
    task_type = next((t for suffix, t in fits.items() if architecture.endswith(suffix)), None)
    if task_type is None or rng.random() < 0.25:
        task_type = rng.choice([None, None, *planner.TASK_TYPES])
    modules_to_save = None
    if rng.random() < 0.2:
        # Not "model" (a Llama-style backbone's name): peft also matches its own wrapper by it, which the planner
        # refuses (test_modules_to_save_model_names_the_wrapper).
        top = [name for name, child in model.named_children()
               if any(True for _ in child.parameters()) and name not in planner.PEFT_WRAPPER_NAMES]
        modules_to_save = [rng.choice(top)]
    r = rng.randint(1, 16)
    # peft's LoRA on a grouped convolution needs a rank the groups divide: mostly draw one
    groups = [m.groups for name, m in model.named_modules() if name in picked and isinstance(m, nn.Conv1d)]
    if groups and rng.random() < 0.8:
        r = math.lcm(*groups) * rng.randint(1, 4)
    return {
        "r": r,
        "targets": targets,
        "bias": rng.choice(planner.BIAS_MODES),
        "task_type": task_type,
        "modules_to_save": modules_to_save,
    }


OUTCOMES: dict[str, int] = {}


@pytest.mark.parametrize(("model_type", "index"), [(mt, i) for mt in HF_FAMILIES for i in range(RANDOM_PER_FAMILY)])
def test_random_plans_match_peft(model_type: str, index: int) -> None:
    rng = random.Random(f"{SEED}-peft-{model_type}-{index}")
    family = FAMILIES[model_type]
    for _ in range(20):  # a config transformers builds (the engine and transformers agree on which: test_transformers)
        raw = random_config(rng, family)
        arch = rng.choice(family.architectures)
        try:
            engine_build(raw, arch.name)
        except CalcError:
            continue
        break
    else:
        pytest.skip("no buildable config drawn")
    model = hf_model(raw, arch.name)
    plan = random_plan(rng, model, arch.name)
    outcome = compare(raw, arch.name, **plan, model=model)
    OUTCOMES[outcome] = OUTCOMES.get(outcome, 0) + 1


def test_modules_to_save_model_names_the_wrapper() -> None:
    """modules_to_save=["model"] on a class whose backbone is ``model``: peft copies its own wrapper (the whole
    model, LoRA layers included) rather than the backbone; the planner refuses with modules_to_save_nested."""
    raw = with_layers(FAMILIES["ultrabert"], {"model_type": "ultrabert"}, 1)
    arch, targets = "UltrabertForQuestionAnswering", ["mlp.gate_proj", "qa_outputs"]
    with pytest.raises(CalcError) as refused:
        planner.lora(engine_build(raw, arch), 4, targets, "none", "QUESTION_ANS", ["model"])
    assert refused.value.code == "modules_to_save_nested"
    theirs = peft_side(hf_model(raw, arch), 4, targets, "none", "QUESTION_ANS", ["model"])
    names = [name for name, *_ in theirs["tensors"]]
    # The copy is of the wrapped model: LoRA's own tensors (and the head) inside the trainable copy.
    copied = [n for n in names if n.startswith("base_model.modules_to_save.default.model.")]
    assert any(".lora_A." in n for n in copied) and any(".qa_outputs." in n for n in copied), copied[:5]


def test_random_plans_are_mostly_accepted() -> None:
    """Guard against drawing only settings peft refuses (which would check little)."""
    if not OUTCOMES:
        pytest.skip("random cases not run in this session")
    assert OUTCOMES.get("ok", 0) >= 0.75 * sum(OUTCOMES.values()), OUTCOMES
    # targets drawn from the real model always exist; a drawn top-level module may still nest (peft matches
    # modules_to_save by suffix: "embeddings" also names "embeddings.word_embeddings"), which the planner refuses
    assert not set(OUTCOMES) & (STRICTER - {"modules_to_save_nested"}), OUTCOMES


# ------------------------------------------------------- published checkpoints


def preset_cases() -> list[tuple[str, str, str | None]]:
    """Each transformers preset, as the sequence classifier fine-tuning tutorials build from it (SEQ_CLS)."""
    cases = []
    for name, preset in PRESETS.items():
        family = FAMILIES[preset.config["model_type"]]
        if not family.transformers:
            continue
        seq = next((a.name for a in family.architectures if a.name.endswith("ForSequenceClassification")), None)
        cases.append((name, seq, "SEQ_CLS") if seq else (name, preset.published_architecture, None))
    return cases


@pytest.mark.parametrize(("preset", "architecture", "task_type"), preset_cases())
def test_presets_match_peft(preset: str, architecture: str, task_type: str | None) -> None:
    raw = dict(PRESETS[preset].config)
    inv = engine_build(raw, architecture)
    default = planner.default_targets(raw["model_type"])
    # The backbone's Linears (a task class that registers its head first, as XLM-R's and jina-v3's do, would
    # otherwise offer the head's, which the task type also saves)
    linear = [m.name.rpartition(".")[2] for m in planner.modules(inv)
              if m.kind == "linear" and m.name.startswith(inv.arch.prefix)]
    # ...or, where the backbone has none (I-BERT's are QuantLinear), the head's, as REFUSED_PRESETS says.
    linear = linear or [m.name.rpartition(".")[2] for m in planner.modules(inv) if m.kind == "linear"]
    targets = list(default) if default else list(dict.fromkeys(linear))[:2]
    assert compare(raw, architecture, 8, targets, "none", task_type, None) == REFUSED_PRESETS.get(preset, "ok")


#: Presets whose tutorial targets peft refuses, and the planner with it (compare checks that peft raises too):
#: I-BERT's encoder is QuantLinear, not nn.Linear, and peft names no LoRA targets for it; the head's
#: "dense" also names the encoder's QuantLinear modules, which peft cannot wrap.
REFUSED_PRESETS = {
    "kssteven/ibert-roberta-base": "lora_target_unsupported",
    "kssteven/ibert-roberta-large": "lora_target_unsupported",
}


# ------------------------------------------------------------- chosen settings


BERT = {"model_type": "bert", "vocab_size": 50, "hidden_size": 16, "num_hidden_layers": 2,
        "num_attention_heads": 2, "intermediate_size": 20, "max_position_embeddings": 40, "num_labels": 3}
ROBERTA = dict(BERT, model_type="roberta")
DISTILBERT = {"model_type": "distilbert", "vocab_size": 50, "dim": 16, "n_layers": 2, "n_heads": 2,
              "hidden_dim": 20, "max_position_embeddings": 40, "num_labels": 3}
XLMR = dict(BERT, model_type="xlm-roberta")

CHOSEN = [
    # (config, class, r, targets, bias, task_type, modules_to_save, expected outcome)
    (BERT, "BertForSequenceClassification", 4, ["query", "value"], "none", "SEQ_CLS", None, "ok"),
    (BERT, "BertForSequenceClassification", 4, ["query", "value"], "none", None, None, "ok"),  # #801
    (BERT, "BertForSequenceClassification", 4, ["query"], "all", "SEQ_CLS", None, "ok"),
    (BERT, "BertForSequenceClassification", 4, ["query"], "lora_only", None, ["classifier"], "ok"),
    (BERT, "BertForSequenceClassification", 4, ["classifier", "query"], "none", "SEQ_CLS", None, "ok"),
    (BERT, "BertForSequenceClassification", 4, ["query"], "none", None, ["dense"], "ok"),
    (BERT, "BertForSequenceClassification", 4, "all-linear", "none", None, None, "ok"),
    (BERT, "BertForSequenceClassification", 4, "all-linear", "none", "SEQ_CLS", None, "ok"),
    (BERT, "BertForSequenceClassification", 4, r".*\.(query|value)", "none", None, None, "ok"),
    (BERT, "BertForMaskedLM", 4, ["word_embeddings", "query"], "none", None, None, "ok"),
    (BERT, "BertForMaskedLM", 4, ["decoder"], "lora_only", None, None, "ok"),
    (BERT, "BertForMaskedLM", 4, ["query"], "all", None, ["word_embeddings"], "ok"),
    (BERT, "BertForMaskedLM", 4, ["query"], "none", None, ["decoder"], "ok"),
    (BERT, "BertForMaskedLM", 4, ["query"], "none", None, ["cls"], "ok"),
    (BERT, "BertForMaskedLM", 4, "all-linear", "all", None, None, "ok"),
    (BERT, "BertForPreTraining", 4, "all-linear", "none", None, None, "ok"),
    (XLMR, "XLMRobertaForMaskedLM", 4, ["word_embeddings", "decoder"], "none", None, None, "ok"),
    (ROBERTA, "RobertaForSequenceClassification", 4, ["dense"], "none", "SEQ_CLS", None, "ok"),
    (ROBERTA, "RobertaForSequenceClassification", 4, "all-linear", "none", "SEQ_CLS", None, "ok"),
    (ROBERTA, "RobertaForSequenceClassification", 4, ["dense"], "none", "TOKEN_CLS", None, "ok"),
    (DISTILBERT, "DistilBertForSequenceClassification", 4, ["q_lin", "v_lin"], "none", "SEQ_CLS", None, "ok"),
    # peft refuses these: a LoRA layer cannot go into modules_to_save ...
    (BERT, "BertForTokenClassification", 4, ["classifier", "query"], "none", "TOKEN_CLS", None, "lora_target_saved"),
    (BERT, "BertForTokenClassification", 4, "all-linear", "none", "TOKEN_CLS", None, "lora_target_saved"),
    (BERT, "BertForQuestionAnswering", 4, "all-linear", "none", "QUESTION_ANS", None, "lora_target_saved"),
    (DISTILBERT, "DistilBertForSequenceClassification", 4, ["pre_classifier"], "none", "SEQ_CLS", None,
     "lora_target_saved"),
    # ... every target inside modules_to_save leaves nothing to adapt ...
    (BERT, "BertForSequenceClassification", 4, ["classifier"], "none", "SEQ_CLS", None, "lora_target_saved"),
    # ... a copy inside a copy, a LayerNorm, a container, r = 0, an unknown bias mode
    (ROBERTA, "RobertaForSequenceClassification", 4, ["query"], "none", "SEQ_CLS", ["dense"], "modules_to_save_nested"),
    (BERT, "BertForSequenceClassification", 4, ["LayerNorm"], "none", None, None, "lora_target_unsupported"),
    (BERT, "BertForSequenceClassification", 4, ["attention"], "none", None, None, "lora_target_unsupported"),
    (BERT, "BertForSequenceClassification", 0, ["query"], "none", None, None, "lora_rank"),
    (BERT, "BertForSequenceClassification", 4, ["query"], "some", None, None, "lora_bias"),
    (BERT, "BertForSequenceClassification", 4, ["nothere"], "none", None, None, "lora_target_missing"),
    (BERT, "BertForSequenceClassification", 4, [], "none", None, None, "lora_targets_required"),
    (dict(BERT, num_hidden_layers=0), "BertModel", 4, "all-linear", "none", None, None, "ok"),  # the pooler
    (dict(BERT, num_hidden_layers=0), "BertForMaskedLM", 4, "all-linear", "none", None, None, "ok"),
    (dict(BERT, model_type="deberta", num_hidden_layers=0), "DebertaModel", 4, "all-linear", "none", None, None,
     "lora_no_linear"),
    (dict(BERT, model_type="albert", embedding_size=8), "AlbertForSequenceClassification", 4, None, "none",
     "SEQ_CLS", None, "lora_targets_required"),
    (BERT, "BertForSequenceClassification", 4, None, "none", "SEQ_CLS", None, "ok"),  # peft's default: query, value
]


@pytest.mark.parametrize("case", CHOSEN, ids=lambda c: f"{c[1]}-{c[3]}-{c[4]}-{c[5]}-{c[6]}")
def test_chosen_settings(case) -> None:
    raw, architecture, r, targets, bias, task_type, modules_to_save, expected = case
    assert compare(raw, architecture, r, targets, bias, task_type, modules_to_save) == expected


def test_a_name_that_matches_nothing_is_refused_although_peft_ignores_it() -> None:
    """Deliberately stricter: peft adapts ``query`` and says nothing about the typo ``vlaue``."""
    theirs = peft_side(hf_model(BERT, "BertModel"), 4, ["query", "vlaue"], "none", None, None)
    assert theirs["trainable"] == 2 * 4 * (16 + 16)  # query alone, in each of the two layers
    inv = engine_build(BERT, "BertModel")
    try:
        planner.lora(inv, 4, ["query", "vlaue"])
    except CalcError as exc:
        assert exc.code == "lora_target_missing" and "vlaue" in exc.message("en")
    else:
        raise AssertionError("expected lora_target_missing")


def test_nested_modules_to_save_are_refused_although_peft_goes_ahead() -> None:
    """peft wraps ``classifier`` and then ``dense`` inside its copy, and adds a third ``classifier.dense`` entry."""
    theirs = peft_side(hf_model(ROBERTA, "RobertaForSequenceClassification"), 4, ["query"], "none", "SEQ_CLS", ["dense"])
    names = [n for n, _, _, _ in theirs["tensors"]]
    assert "base_model.model.classifier.modules_to_save.default.dense.modules_to_save.default.weight" in names
    assert "base_model.model.classifier.dense.modules_to_save.default.weight" in names
    inv = engine_build(ROBERTA, "RobertaForSequenceClassification")
    try:
        planner.lora(inv, 4, ["query"], "none", "SEQ_CLS", ["dense"])
    except CalcError as exc:
        assert exc.code == "modules_to_save_nested"
    else:
        raise AssertionError("expected modules_to_save_nested")


def test_the_calculators_copy_of_peft_constants() -> None:
    from peft.utils import constants

    mapping = constants.TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING
    for model_type in HF_FAMILIES:
        theirs = mapping.get(model_type)
        ours = planner.default_targets(model_type)
        assert (None if theirs is None else sorted(theirs)) == (None if ours is None else sorted(ours)), model_type
    assert tuple(constants.SEQ_CLS_HEAD_NAMES) == planner.SEQ_CLS_HEAD_NAMES
    assert constants.INCLUDE_LINEAR_LAYERS_SHORTHAND == planner.ALL_LINEAR
    from peft import LoraConfig

    assert LoraConfig().r == planner.DEFAULT_R


def test_output_embedding_is_what_transformers_returns() -> None:
    """``all-linear`` leaves out ``model.get_output_embeddings()``: the planner finds the same module."""
    for model_type in HF_FAMILIES:
        family = FAMILIES[model_type]
        raw = with_layers(family, {"model_type": model_type}, 1)
        raw["tie_word_embeddings"] = False  # the module is the same whether or not its weight is tied
        for arch in family.architectures:
            case = dict(raw, num_labels=arch.labels_must_be or 2, **dict(arch.requires))
            model = hf_model(case, arch.name)
            out = model.get_output_embeddings()
            theirs = None
            if out is not None:
                import torch.nn as nn

                name = next(n for n, m in model.named_modules() if m is out)
                theirs = name if isinstance(out, nn.Linear) else None
            assert planner.output_embedding(engine_build(case, arch.name)) == theirs, (model_type, arch.name)
