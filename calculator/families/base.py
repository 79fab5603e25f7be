"""What a model family declares, completely: one object per ``model_type``.

A :class:`Family` is the whole of what the rest of the calculator knows about a
``model_type``: its config fields (keys, Hugging Face defaults, bounds, labels
in both languages, how random configs are drawn for the cross-check), its
architectures and the tensors each creates in ``state_dict`` order, its
formula as named terms, its extra checks, its presets, and the few words the
page needs (title, legend, how a layer row is named). The CLI, the views, the
page's form and share links, the docs and the cross-check read these
declarations; nothing outside ``calculator/families/`` compares ``model_type``
strings.

A related family is written as a diff of another (:meth:`Family.derive`), the
way transformers' modular files declare ``XLMRobertaModel(RobertaModel)``.
"""
from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Mapping

from ..config import Field, Label, read_fields
from ..formula import Formula
from ..i18n import LABELS, declare_family_words, label, pick
from ..model import Inventory, KerasLayer, Tensor, TensorList

if TYPE_CHECKING:
    from ..costs.declare import CostModel

#: A head adds the task-specific tensors (names relative to the class, backbone under ``prefix``).
HeadBuilder = Callable[[TensorList, dict[str, Any], str], None]
#: The backbone: embeddings, encoder and pooler, with names under ``prefix``.
BackboneBuilder = Callable[[TensorList, dict[str, Any], str, bool], None]


class Task:
    """What an architecture's head does: declared on each :class:`Architecture` (``task=Task.MASKED_LM``), never
    read off its class name (issue 31: the head comes from the declaration, so ``RoFormerForMaskedLM``'s own
    "For" or a new suffix cannot pick the wrong program).

    The values are the words transformers ends its task classes with (``BertForMaskedLM``), so a step program's
    ``kind == "ForMaskedLM"`` reads as the task it names; ``tests/properties/test_tasks.py`` checks every
    declaration against its class name and that no family module parses a class name again.
    """

    #: The bare backbone (``BertModel``, ``FunnelBaseModel``, ``T5EncoderModel``): its outputs, no head.
    MODEL = ""
    MASKED_LM = "ForMaskedLM"
    CAUSAL_LM = "ForCausalLM"
    #: A language-modelling head class named ``…LMHeadModel`` (``BertLMHeadModel``, ``XLMWithLMHeadModel``).
    LM_HEAD_MODEL = "LMHeadModel"
    PRETRAINING = "ForPreTraining"
    NEXT_SENTENCE_PREDICTION = "ForNextSentencePrediction"
    SEQUENCE_CLASSIFICATION = "ForSequenceClassification"
    MULTIPLE_CHOICE = "ForMultipleChoice"
    TOKEN_CLASSIFICATION = "ForTokenClassification"
    QUESTION_ANSWERING = "ForQuestionAnswering"
    #: XLM's and FlauBERT's plain span head (``…ForQuestionAnsweringSimple``), beside their SQuAD head.
    QUESTION_ANSWERING_SIMPLE = "ForQuestionAnsweringSimple"
    ENTITY_CLASSIFICATION = "ForEntityClassification"
    ENTITY_PAIR_CLASSIFICATION = "ForEntityPairClassification"
    ENTITY_SPAN_CLASSIFICATION = "ForEntitySpanClassification"
    RETRIEVAL = "ForRetrieval"


#: Every :class:`Task` value (what an :attr:`Architecture.task` may be).
TASKS: tuple[str, ...] = (
    Task.MODEL, Task.MASKED_LM, Task.CAUSAL_LM, Task.LM_HEAD_MODEL, Task.PRETRAINING, Task.NEXT_SENTENCE_PREDICTION,
    Task.SEQUENCE_CLASSIFICATION, Task.MULTIPLE_CHOICE, Task.TOKEN_CLASSIFICATION, Task.QUESTION_ANSWERING,
    Task.QUESTION_ANSWERING_SIMPLE, Task.ENTITY_CLASSIFICATION, Task.ENTITY_PAIR_CLASSIFICATION,
    Task.ENTITY_SPAN_CLASSIFICATION, Task.RETRIEVAL,
)


@dataclass(frozen=True, kw_only=True)
class Architecture:
    """One model class of a family, declared with keywords (``pooler`` is tri-state, so positions misread).

    ``prefix`` is the attribute name of the backbone inside the class
    (``"bert."`` inside ``BertForMaskedLM``, ``""`` for ``BertModel``);
    ``pooler`` is ``True``/``False`` when the class fixes it, ``None`` when
    the caller may choose (``add_pooling_layer``, default on).
    """

    name: str
    prefix: str
    pooler: bool | None
    #: What the head does (a :class:`Task` value): the step program and the checks choose the head's forward
    #: from this, never from :attr:`name`. None only where a family has not declared it yet (its step refuses).
    task: str | None = None
    head: HeadBuilder | None = None
    uses_num_labels: bool = False
    ties_embeddings: bool = False
    #: Some heads refuse any other label count (DistilBERT's QA head needs exactly 2).
    labels_must_be: int | None = None
    #: The class registers its head before its backbone (transformers 5.23's XLM-R task
    #: classes, from its modular file), so the head comes first in ``state_dict``.
    head_first: bool = False
    #: Config values the class asserts in its ``__init__`` (``ReformerModelWithLMHead``: ``is_decoder`` true;
    #: ``ReformerForMaskedLM``: false): any other value is refused, as transformers refuses it.
    requires: tuple[tuple[str, Any], ...] = ()
    #: The module ``get_output_embeddings()`` returns where the class names one without tying it (ESM C's
    #: ``lm_head.decoder``); None: found from :attr:`ties_embeddings` (:func:`calculator.peft.output_embedding`).
    output_embeddings: str | None = None
    #: Modules the class builds without parameters (``nn.Identity``) that peft still matches by name and refuses
    #: to adapt (``UltrabertForMaskedLM.decoder``, beside ``head.decoder``): :func:`calculator.peft.modules`
    #: lists them, so a target they match is refused as peft refuses it.
    identities: tuple[str, ...] = ()


def plain_layer_row(n: int, config: Mapping[str, Any], lang: str) -> str:
    """"Layer 3" / "第 3 层": how most families name a row of the per-layer table."""
    return label("layer_n", lang, n=n)


@dataclass(frozen=True)
class Preset:
    """A published checkpoint: the size-relevant keys of its config.json, and the class it lists.

    ``config`` keeps the hub's keys and values (only the keys that shape tensors,
    plus ``model_type``); ``published_architecture`` is its ``architectures[0]``.
    """

    name: str
    config: dict[str, Any]
    published_architecture: str


@dataclass(frozen=True)
class Extra:
    """A config.json key that changes a result but has no field in the form (it travels in the share link).

    ``parse`` turns the link's text back into the value config.json would hold;
    ``to_query`` gives the link's text for a value read by the family, or None when
    it is the default (and so left out of the link).
    """

    key: str
    parse: Callable[[str], Any]
    to_query: Callable[[Mapping[str, Any], Mapping[str, Any]], str | None]


@dataclass(frozen=True)
class IgnoredKey:
    """A config.json key that some model code reads to build other tensors, and this family's declaration does not.

    The counts are those of transformers 5.23's class for the config without it; a config that sets it to
    anything but ``counted`` gets a note saying so beside the total and in every copy
    (:func:`calculator.views.config_notes`). ``why`` says, in both languages, what that code does with it
    (``{value}``: the config's value, ``{architecture}``: the class counted).
    """

    key: str
    counted: tuple[Any, ...]
    why: Label


#: What a note's value may be in a link: a word (``rotary``, ``true``, ``3``) or a class path
#: (``org/repo--module.Class``). Anything else is not carried: a link holds no text of a stranger's.
_NOTE_TOKEN = re.compile(r"[A-Za-z0-9_.-]{1,40}")
_CLASS_PATH = re.compile(r"[A-Za-z0-9_./-]{1,200}")


def _note_parse(text: str) -> Any:
    """A link's value of an ignored key, as config.json holds it (true, 3, "rotary"); None for anything else."""
    if not _NOTE_TOKEN.fullmatch(text):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def _ignored_query(item: IgnoredKey) -> Callable[[Mapping[str, Any], Mapping[str, Any]], str | None]:
    """The link's text for ``item`` when the config sets it to a value the counts do not hold for, else None."""
    def to_query(raw: Mapping[str, Any], config: Mapping[str, Any]) -> str | None:
        value = raw.get(item.key)
        if value is None or value in item.counted:
            return None
        text = value if isinstance(value, str) else json.dumps(value)
        return text if _NOTE_TOKEN.fullmatch(text) else None

    return to_query


def _auto_map_query(raw: Mapping[str, Any], config: Mapping[str, Any]) -> str | None:
    """The class an ``auto_map`` names for AutoModel (else its first), for the link: the note's one fact."""
    value = raw.get("auto_map")
    if isinstance(value, Mapping):
        named = value.get("AutoModel")
        value = named if isinstance(named, str) else next((v for v in value.values() if isinstance(v, str)), "")
    if not isinstance(value, str):
        return None
    return value.strip() if _CLASS_PATH.fullmatch(value.strip()) else None


#: A config's ``auto_map`` in a link: only the class it names, which is all the note quotes.
AUTO_MAP = Extra("auto_map", lambda text: {"AutoModel": text} if _CLASS_PATH.fullmatch(text) else None,
                 _auto_map_query)


@dataclass(frozen=True)
class Family:
    model_type: str
    base: str
    fields: tuple[Field, ...]
    architectures: tuple[Architecture, ...]
    #: One line per family for menus and the explainer.
    title: Label
    #: Builds the backbone (embeddings, encoder, pooler) with names relative to the prefix.
    backbone: BackboneBuilder | None = None
    #: The closed form as named terms, written independently of the tensor list
    #: (``formula(inv).total == inv.total`` is checked for every family).
    formula: Callable[[Inventory], Formula] | None = None
    #: Published checkpoints of this family, in menu order.
    presets: tuple[Preset, ...] = ()
    #: HF ``attribute_map``: generic names accepted for this family's own keys.
    aliases: dict[str, str] = field(default_factory=dict)
    #: (hidden key, heads key) that must divide (HF rejects the config otherwise), or None.
    heads_check: tuple[str, str] | None = ("hidden_size", "num_attention_heads")
    #: Further checks on the values read (each raises a CalcError), e.g. ALBERT's groups × layers bound.
    checks: tuple[Callable[[dict[str, Any]], None], ...] = ()
    #: Families that are not built from a backbone + head (keras-bert, the 2018 Transformer)
    #: supply a whole builder instead; it returns tensors and (optionally) Keras layers.
    builder: Callable[[dict[str, Any], str], tuple[tuple[Tensor, ...], tuple[KerasLayer, ...]]] | None = None
    #: HF's default ``pad_token_id``: ``nn.Embedding`` refuses a padding index outside the table.
    pad_token_id: int | None = 0
    #: Whether the position table also takes ``padding_idx`` (RoBERTa's does).
    positions_padded: bool = False
    #: A padding row the model code fixes whatever ``pad_token_id`` says (MPNet: ``self.padding_idx = 1``).
    padding_row: int | None = None
    #: Families whose arguments are not all integers/booleans (keras-bert's ``dropout_rate``,
    #: its prefix-list ``trainable``) read the raw config themselves.
    read: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None
    #: Keys without a form field that still change a result (kept in the share link).
    extras: tuple[Extra, ...] = ()
    #: Where the values come from: a Hugging Face ``config.json`` (True), or a
    #: library's constructor arguments (keras-bert, the 2018 Transformer).
    config_json: bool = True
    #: The page-label key of the form's legend for this family's fields.
    legend: str = "fields_legend"
    #: How the per-layer table names row ``n`` (a label in the given language), and its title key.
    layer_row: Callable[[int, Mapping[str, Any], str], str] = plain_layer_row
    per_layer_title: str = "per_layer_title"
    #: Random configs for the cross-check: values drawn from each field's ``sample``,
    #: then this hook may adjust them (e.g. keep the hidden size a multiple of the heads).
    sample: Callable[[random.Random, dict[str, Any]], None] | None = None
    #: Whether transformers builds this family (the cross-check compares against it).
    transformers: bool = True
    #: Position in menus and lists (lower first).
    rank: int = 100
    #: Words only this family needs (its formula lines' keys, e.g. "task_type"), in both languages;
    #: looked up before the shared :data:`calculator.i18n.LABELS`.
    labels: dict[str, Label] = field(default_factory=dict)
    #: peft's default LoRA ``target_modules`` for this model type (its
    #: ``TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING``); empty where peft
    #: names none, and then a LoRA plan must say which modules it adapts.
    peft_targets: tuple[str, ...] = ()
    #: What one training step costs (issue 25): the forward pass as a program over
    #: :class:`calculator.costs.Sim`'s operations, and the longest input. None: the
    #: calculator refuses to work out this family's step rather than guess.
    costs: "CostModel | None" = None
    #: Where ``costs`` is None because the step defined here does not fit the family at all (a Keras
    #: model, an encoder-decoder), the coded error that says why; None: the generic ``costs_family``.
    costs_refusal: str | None = None
    #: Modules of the task classes that the published checkpoints do not hold, so they start
    #: from random weights when loaded (DeBERTa's ContextPooler ``pooler``: its checkpoints
    #: were pre-trained without one). The planner warns when such a module stays frozen.
    untrained_modules: tuple[str, ...] = ()
    #: The attention transformers 5.23 builds this family's classes with when nothing is asked for: "sdpa"
    #: where the class supports it (``_supports_sdpa``), else "eager". The training step here is eager
    #: attention whatever this says; where it says "sdpa", the panel says so beside its figures (issue 35,
    #: reader H1). Checked against transformers in ``tests/crosscheck/test_config_notes_reference.py``.
    default_attention: str = "eager"
    #: Keys some model code reads to build other tensors, which this declaration does not read (issue 35,
    #: reader H5): counted as the stock class, with a note when a config sets one.
    ignored_keys: tuple[IgnoredKey, ...] = ()
    #: Classes a config.json's ``architectures`` may name whose encoder is this family's base class (T5's
    #: ``T5ForConditionalGeneration``): without ``--architecture`` such a config is counted as the base class,
    #: with a note saying so (``encoder_of``), rather than refused. Asked for by name, they stay refused.
    encoder_of: tuple[str, ...] = ()
    #: Where this family is transformers' native port of a checkpoint's custom code (:mod:`._ports`), what its
    #: tensors are beside that code's (issue 34 item 4), in both languages: said in the ``custom_code`` note.
    port_words: Label | None = None
    #: Built-in adapters a custom-code config declares (jina-embeddings-v3's task LoRAs), reported apart from
    #: the count: a sentence in ``lang`` for the config (None when it declares none).
    adapters: Callable[[Mapping[str, Any], str], str | None] | None = None

    def __post_init__(self) -> None:
        declare_family_words(self.labels)

    @property
    def link_extras(self) -> tuple[Extra, ...]:
        """:attr:`extras`, and the training step's config keys (:attr:`CostModel.keys`): the keys a share
        link carries besides the form's fields (each only when it is not transformers' default)."""
        from ..costs.declare import step_parse, step_query  # the declarations, below the step (no circle)

        keys = self.costs.keys if self.costs is not None else ()
        mine = {e.key for e in self.extras}
        out = self.extras + tuple(Extra(k.key, step_parse, step_query(k)) for k in keys if k.key not in mine)
        # Issue 35 (H5): what the notes say travels in the link too (a key the declaration ignores, set otherwise;
        # the config's auto_map), so a link reopened says again which class its counts are for.
        out += tuple(Extra(i.key, _note_parse, _ignored_query(i)) for i in self.ignored_keys if i.key not in mine)
        return out + ((AUTO_MAP,) if self.config_json and "auto_map" not in mine else ())

    def missing_words(self, keys: Any) -> list[str]:
        """The keys among ``keys`` that have no words for this family (its own, or the shared ones)."""
        return [k for k in keys if k not in self.labels and k not in LABELS]

    def architecture(self, name: str) -> Architecture | None:
        for arch in self.architectures:
            if arch.name == name:
                return arch
        return None

    @property
    def architecture_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.architectures)

    def field(self, key: str) -> Field | None:
        for f in self.fields:
            if f.key == key:
                return f
        return None

    def read_config(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """The family's values from a raw config: HF's defaults filled in, every value checked.

        The training step's keys (:attr:`CostModel.keys`: dropouts, the activation) are kept
        too: they shape no tensor, but the step's cost depends on them.
        """
        from ..costs.declare import read_step_keys  # the declarations, below the step (no circle)

        values = self.read(raw) if self.read is not None else read_fields(self.fields, raw, self.aliases)
        if self.costs is not None:
            values.update(read_step_keys(self.costs.keys, raw))
        return values

    def label(self, key: str, lang: str = "en", **params: Any) -> str:
        """A label in ``lang``: the family's own (:attr:`labels`) first, then the shared ones."""
        entry = self.labels.get(key)
        if entry is None:
            return label(key, lang, **params)
        return pick(entry, lang, **params)

    def derive(self, **changes: Any) -> "Family":
        """A sibling family: this one with some attributes replaced (XLM-R is RoBERTa under other names).

        The step program (:attr:`costs`) runs over the tensors the backbone and the heads build, by name: a
        sibling that builds other tensors (another ``backbone`` or ``builder``, or a class whose head or task
        is not one of this family's) must say which program runs them, ``costs=`` (its own, or None to refuse),
        else it would inherit a forward that disagrees with its tensors. Refused here, at import, so no such
        family can exist (XLM-R-XL's pre-LN layers once ran RoBERTa's program until the cross-check caught it).
        """
        if self.costs is not None and "costs" not in changes:
            changed: list[str] = [k for k in ("backbone", "builder") if k in changes and changes[k] is not getattr(self, k)]
            heads = {(a.task, a.head) for a in self.architectures}
            if any((a.task, a.head) not in heads for a in changes.get("architectures", ())):
                changed.append("architectures")
            if changed:
                raise TypeError(f"derive() from {self.model_type!r} changes {', '.join(changed)}: restate costs= "
                                f"(the step program for those tensors, or None to refuse it)")
        return replace(self, **changes)


def with_defaults(fields: tuple[Field, ...], **defaults: Any) -> tuple[Field, ...]:
    """The same fields with other HF defaults (RoBERTa's vocabulary is 50265, BERT's 30522)."""
    unknown = set(defaults) - {f.key for f in fields}
    if unknown:
        raise KeyError(f"no such fields: {sorted(unknown)}")
    return tuple(replace(f, default=defaults[f.key]) if f.key in defaults else f for f in fields)


def renamed(arch: Architecture, old: str, new: str, **changes: Any) -> Architecture:
    """An architecture of a sibling family: its class name and prefix renamed (``Roberta`` → ``XLMRoberta``)."""
    prefix = arch.prefix
    return replace(arch, name=arch.name.replace(old, new, 1), prefix=prefix, **changes)
