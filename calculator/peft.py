"""The trainable-parameter planner: freezing, and LoRA exactly as peft 0.21.2 applies it.

:func:`lora` follows what ``get_peft_model(model, LoraConfig(...))`` does to a
transformers model (``peft/tuners/tuners_utils.py``, ``peft/tuners/lora``,
``peft/utils/other.py``, ``peft/peft_model.py`` of the pinned release), on the
inventory alone:

1. ``target_modules``: a list of names matches every module whose full name equals
   a name or ends with ``"." + name`` (``check_target_module_exists``); a string is
   ``"all-linear"`` (every ``nn.Linear`` except the output embedding, or with
   ``task_type="SEQ_CLS"`` the top-level ``classifier``/``score``:
   ``_maybe_include_all_linear_layers``) or a regular expression matched against the
   full name (``re.fullmatch``). Left out, peft's default for the ``model_type``
   (``TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING``).
2. Modules inside a ``modules_to_save`` entry known when the adapter is injected
   (the explicit list, plus ``["classifier", "score"]`` for ``SEQ_CLS``) are skipped
   (``(^|.*\\.)name($|\\..*)``).
3. Each target ``nn.Linear(in, out)`` becomes ``base_layer`` (its own weight and bias,
   renamed) plus ``lora_A.default.weight [r, in]`` and ``lora_B.default.weight [out, r]``;
   an ``nn.Embedding(n, d)`` gets ``lora_embedding_A.default [r, n]`` and
   ``lora_embedding_B.default [d, r]``.
4. Everything else is frozen; ``bias="all"`` unfreezes every parameter whose name
   ends with ``.bias``, ``"lora_only"`` the biases of the adapted layers.
5. Every module whose full name *ends with* (plain string suffix, ``_set_trainable``)
   an entry of ``modules_to_save`` is wrapped: the original, frozen, as
   ``original_module``, and a trainable deep copy as ``modules_to_save.default``.
   ``TOKEN_CLS`` adds ``["classifier", "score"]`` and ``QUESTION_ANS`` ``["qa_outputs"]``
   *after* injecting LoRA, so there they do not protect the head from LoRA, and
   peft refuses a LoRA layer in ``modules_to_save`` (``TypeError``).
6. ``print_trainable_parameters()`` sums ``named_parameters()`` of the PEFT model
   (each Parameter once): the copies count in "all params" next to their frozen
   originals.

Standard library only (the page runs it in Pyodide).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from . import options
from .config import MAX_SIZE, MAX_TOTAL, coerce_int
from .errors import CalcError
from .families import FAMILIES
from .i18n import L, join_list, pick
from .model import Inventory, Tensor

TASK_TYPES: tuple[str, ...] = ("SEQ_CLS", "TOKEN_CLS", "QUESTION_ANS")
BIAS_MODES: tuple[str, ...] = ("none", "all", "lora_only")
ALL_LINEAR = "all-linear"
#: ``LoraConfig``'s default rank.
DEFAULT_R = 8
#: What peft's task classes add to ``modules_to_save`` (``PeftModelForSequenceClassification`` & co.).
TASK_HEADS: dict[str, tuple[str, ...]] = {
    "SEQ_CLS": ("classifier", "score"),
    "TOKEN_CLS": ("classifier", "score"),
    "QUESTION_ANS": ("qa_outputs",),
}
#: The task types whose head names are in ``modules_to_save`` before LoRA is injected.
SAVED_BEFORE_INJECTION: tuple[str, ...] = ("SEQ_CLS",)
#: ``all-linear`` with ``SEQ_CLS`` leaves out the first of these top-level attributes (``SEQ_CLS_HEAD_NAMES``).
SEQ_CLS_HEAD_NAMES: tuple[str, ...] = ("score", "classifier")


def default_targets(model_type: str) -> tuple[str, ...] | None:
    """peft's ``TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING`` entry for ``model_type``, None if it has none:
    each family declares its entry (``Family.peft_targets``; read when asked, so no family is imported for it)."""
    family = FAMILIES.get(model_type)
    return family.peft_targets if family is not None and family.peft_targets else None


#: The PEFT model's ``state_dict`` names start here (``PeftModel.base_model`` → ``LoraModel.model``).
PREFIX = "base_model.model."
ADAPTER = "default"
#: Submodules of a LoRA layer (``named_modules()`` of ``lora.Linear`` / ``lora.Embedding``).
LORA_SUBMODULES: dict[str, tuple[str, ...]] = {
    "linear": (
        "base_layer", "lora_dropout", "lora_dropout.default", "lora_A", "lora_A.default", "lora_B",
        "lora_B.default", "lora_embedding_A", "lora_embedding_B", "lora_magnitude_vector",
    ),
    "embedding": (
        "base_layer", "lora_dropout", "lora_dropout.default", "lora_A", "lora_B", "lora_embedding_A",
        "lora_embedding_B", "lora_magnitude_vector",
    ),
    # ``lora.Conv1d`` has the same submodules as ``lora.Linear``
    "conv1d": (
        "base_layer", "lora_dropout", "lora_dropout.default", "lora_A", "lora_A.default", "lora_B",
        "lora_B.default", "lora_embedding_A", "lora_embedding_B", "lora_magnitude_vector",
    ),
}
#: The module kinds peft's LoRA adapts (``nn.Linear``, ``nn.Embedding``, ``nn.Conv1d``).
LORA_KINDS: tuple[str, ...] = ("linear", "embedding", "conv1d")


#: Warnings (not errors: peft goes ahead), in both languages.
WARNINGS: dict[str, dict[str, str]] = {
    "head_frozen": L(
        "The task head ({modules}) is frozen: peft trains only what it adds and what modules_to_save copies, "
        "and this head starts from random weights. Set task_type (SEQ_CLS, TOKEN_CLS or QUESTION_ANS) or "
        "modules_to_save=[{suggest}] (peft issue #801).",
        "任务头（{modules}）被冻结了：peft 只训练它新加的参数和 modules_to_save 复制出的模块，"
        "而这个任务头的权重是随机初始化的。请设置 task_type（SEQ_CLS、TOKEN_CLS 或 QUESTION_ANS）"
        "或 modules_to_save=[{suggest}]（peft issue #801）。",
    ),
    "pooler_random": L(
        "{modules} is frozen, and the published checkpoints hold no weights for it: it stays a random "
        "layer for the whole run. Add it to modules_to_save ([{suggest}]) to train it.",
        "{modules} 被冻结了，而公开的 checkpoint（权重文件）里没有它的权重：整个训练过程中它都是随机初始化的值。"
        "请把它加入 modules_to_save（[{suggest}]）一起训练。",
    ),
    "lora_target_skipped": L(
        "LoRA skips {modules}: they are inside modules_to_save, which peft trains in full instead.",
        "LoRA 跳过了 {modules}：它们位于 modules_to_save 之中，peft 会完整地训练这些模块。",
    ),
    "nothing_trainable": L(
        "Nothing is left to train: every parameter is frozen.",
        "没有可训练的参数：所有参数都被冻结了。",
    ),
}


@dataclass(frozen=True)
class PlanWarning:
    """A warning with a stable code and a message in both languages (lists of names joined as each language does)."""

    code: str
    params: dict[str, Any] = field(default_factory=dict)

    def message(self, lang: str = "en") -> str:
        params = {k: join_list(v, lang) if isinstance(v, (list, tuple)) else v for k, v in self.params.items()}
        return pick(WARNINGS[self.code], lang, **params)

    def to_dict(self, lang: str = "en") -> dict[str, str]:
        return {"code": self.code, "message": self.message(lang)}


@dataclass(frozen=True)
class PlanTensor:
    """One ``state_dict`` entry of the planned model.

    ``kind``: ``"base"`` (the model's own tensor; under LoRA possibly renamed
    ``…base_layer.weight`` or ``…original_module.…``), ``"lora"`` (added by LoRA) or
    ``"copy"`` (a ``modules_to_save`` copy). ``source`` is the inventory name a base
    tensor or copy comes from, or the module a LoRA tensor adapts.
    """

    name: str
    shape: tuple[int, ...]
    trainable: bool
    kind: str
    source: str
    tied_to: str | None = None

    @property
    def count(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "shape": list(self.shape), "count": self.count, "trainable": self.trainable,
            "kind": self.kind, "source": self.source, "tied_to": self.tied_to,
        }


@dataclass(frozen=True)
class Plan:
    """What a fine-tuning setup trains.

    ``trainable`` and ``all`` are peft's ``get_nb_trainable_parameters()`` (LoRA) or
    the model's own sums after freezing; ``tensors`` the planned model's ``state_dict``
    in order; ``targets`` the modules LoRA adapts, ``saved`` the modules
    ``modules_to_save`` wraps (full names, without ``base_model.model.``).
    """

    method: str  # "lora" or "freeze"
    trainable: int
    all: int
    tensors: tuple[PlanTensor, ...]
    settings: dict[str, Any]
    targets: tuple[str, ...] = ()
    saved: tuple[str, ...] = ()
    warnings: tuple[PlanWarning, ...] = ()

    @property
    def percentage(self) -> float:
        """``100 * trainable / all``, the float peft formats."""
        return 100 * self.trainable / self.all if self.all else 0.0

    @property
    def line(self) -> str | None:
        """peft's ``print_trainable_parameters()`` line, character for character (LoRA plans only)."""
        if self.method != "lora":
            return None
        return f"trainable params: {self.trainable:,d} || all params: {self.all:,d} || trainable%: {self.percentage:.4f}"

    @property
    def added(self) -> tuple[PlanTensor, ...]:
        """The tensors LoRA adds, in ``state_dict`` order."""
        return tuple(t for t in self.tensors if t.kind == "lora")

    @property
    def copies(self) -> tuple[PlanTensor, ...]:
        return tuple(t for t in self.tensors if t.kind == "copy")

    def to_dict(self, lang: str = "en") -> dict[str, Any]:
        """Plain data for JSON: the CLI's ``"peft"`` / ``"freeze"`` object."""
        out: dict[str, Any] = {"trainable": self.trainable, "all": self.all}
        if self.line is not None:
            out["line"] = self.line
        out.update({
            "method": self.method,
            "percentage": self.percentage,
            "settings": dict(self.settings),
            "targets": list(self.targets),
            "modules_to_save": list(self.saved),
            "added": [t.to_dict() for t in self.added],
            "added_count": sum(t.count for t in self.added),
            "copies_count": _unique_count(self.copies),
            "warnings": [w.to_dict(lang) for w in self.warnings],
            "tensors": [t.to_dict() for t in self.tensors],
        })
        return out


def _unique_count(tensors: Sequence[PlanTensor]) -> int:
    return sum(t.count for t in tensors if t.tied_to is None)


# ------------------------------------------------------------------- the module tree


@dataclass(frozen=True)
class Module:
    """A module of the model as the inventory shows it: its full name and kind.

    ``kind``: ``"linear"`` / ``"embedding"`` / ``"layer_norm"`` for a module holding
    parameters of that kind, ``"other"`` for one holding other parameters (a bare
    Parameter, a non-Linear projection), ``"container"`` for one that only holds modules.
    """

    name: str
    kind: str


def modules(inv: Inventory) -> tuple[Module, ...]:
    """Every module that holds a parameter or holds such a module, in ``state_dict`` order."""
    direct: dict[str, set[str]] = {}
    order: dict[str, None] = {}
    for t in inv.tensors:
        parts = t.module_name.split(".") if t.module_name else []
        for i in range(1, len(parts) + 1):
            order.setdefault(".".join(parts[:i]), None)
        if t.module_name:
            direct.setdefault(t.module_name, set()).add(t.module)
    parents = {m.rpartition(".")[0] for m in order if "." in m}
    out = []
    for name in order:
        kinds = direct.get(name)
        if kinds is None:
            kind = "container"
        elif name in parents or len(kinds) != 1:
            kind = "other"  # parameters of its own next to child modules: not an nn.Linear
        else:
            (only,) = kinds
            kind = only if only in ("linear", "embedding", "layer_norm", "conv1d") else "other"
        out.append(Module(name, kind))
    arch = getattr(inv, "arch", None)
    out += [Module(name, "other") for name in (arch.identities if arch is not None else ()) if name not in order]
    return tuple(out)


def target_names(inv: Inventory) -> tuple[str, ...]:
    """The short names LoRA can take here (``query``, ``value``, ``dense``, ``q_lin``…), in order of first use."""
    out: dict[str, None] = {}
    for m in modules(inv):
        if m.kind in LORA_KINDS:
            out.setdefault(m.name.rpartition(".")[2], None)
    return tuple(out)


def output_embedding(inv: Inventory) -> str | None:
    """The module ``model.get_output_embeddings()`` returns, if it is an ``nn.Linear``.

    Classes that tie an output projection to the word embeddings (``ties_embeddings``)
    have one: the last Linear of the head whose weight has the word embedding's shape.
    """
    arch = inv.arch
    if arch is not None and arch.output_embeddings is not None:
        return arch.output_embeddings
    if arch is None or not arch.ties_embeddings:
        return None
    # The word table: the embedding with V rows (XLM lists its position table first), else the first embedding.
    tables = [t for t in inv.tensors if t.embedding]
    # A composite's words are its text encoder's (ModernVBERT, UltraVBERT: text_vocab_size; the vision tower's
    # position table comes first).
    vocab = inv.config.get("vocab_size", inv.config.get("text_vocab_size"))
    word = next((t for t in tables if t.shape[0] == vocab), tables[0] if tables else None)
    if word is None:
        return None
    found = None
    for t in inv.tensors:
        if t.section == "head" and t.module == "linear" and t.name.endswith(".weight") and t.shape == word.shape:
            found = t.module_name
    if found is None:  # an output table of its own width (RemBERT's E_out): the last head Linear onto V rows
        for t in inv.tensors:
            if t.section == "head" and t.module == "linear" and t.name.endswith(".weight") and t.shape[0] == word.shape[0]:
                found = t.module_name
    if found is None and any(t.name == DEBERTA_LM_DENSE + ".weight" for t in inv.tensors):
        found = DEBERTA_LM_DENSE
    return found


#: Names peft's own wrapper answers to (``PeftModel.base_model.model``): as modules_to_save they name it too.
PEFT_WRAPPER_NAMES: tuple[str, ...] = ("model", "base_model.model")

#: DeBERTa's non-legacy MLM head multiplies by the word table in ``forward`` and has no decoder Linear;
#: its ``get_output_embeddings()`` returns this dense layer, so ``all-linear`` leaves it out.
DEBERTA_LM_DENSE = "lm_predictions.lm_head.dense"


def task_head_modules(inv: Inventory) -> tuple[str, ...]:
    """Top-level modules of a task head that starts from random weights (none for LM heads)."""
    arch = inv.arch
    if arch is None or arch.head is None or arch.ties_embeddings:
        return ()
    out: dict[str, None] = {}
    for t in inv.tensors:
        if t.section == "head":
            out.setdefault(t.name.split(".", 1)[0], None)
    return tuple(out)


# ------------------------------------------------------------------------ matching


def _matches_name(key: str, name: str) -> bool:
    return key == name or key.endswith("." + name)


#: What a module's name is made of (``classifier``, ``bert.pooler.dense``): checked before
#: any pattern is built from one.
_MODULE_NAME = re.compile(r"[\w.]+")


def _in_saved(key: str, saved: Sequence[str]) -> bool:
    """peft's guard: a module inside a ``modules_to_save`` entry is not a LoRA target.

    peft writes the name into a regex unescaped; names are checked against
    :data:`_MODULE_NAME` first (:func:`lora`), so a ``.`` is the only character with a
    meaning there, and it matches itself among module names' ``[\\w.]`` characters too.
    """
    for m in saved:
        if not _MODULE_NAME.fullmatch(m):
            raise CalcError("module_name", key="modules_to_save", value=m)
        if re.match(rf"(^|.*\.){m}($|\..*)", key):
            return True
    return False


def _short_list(names: Sequence[str], limit: int = 8) -> list[str]:
    """The first ``limit`` names, and "…" for the rest (a message joins them as its language does)."""
    names = list(names)
    return names[:limit] + (["…"] if len(names) > limit else [])


# ---------------------------------------------------------------------------- LoRA


#: The inputs (the CLI's options, the page's fields) each error of :func:`lora` is about.
_R = (options.LORA_R.key,)
_TARGETS = (options.LORA_TARGETS.key,)
_SAVE = (options.MODULES_TO_SAVE.key,)


def _check_rank(r: Any) -> int:
    try:
        value = coerce_int("r", r)
    except CalcError as exc:
        if exc.code == "too_large":  # twenty digits are a whole number, just far too large
            raise CalcError("too_large", fields=_R, key="r", value=r, maximum=MAX_SIZE) from None
        raise CalcError("lora_rank", fields=_R, value=r) from None
    if value <= 0:
        raise CalcError("lora_rank", fields=_R, value=value)
    if value > MAX_SIZE:
        raise CalcError("too_large", fields=_R, key="r", value=value, maximum=MAX_SIZE)
    return value


def _family_ok(inv: Inventory) -> None:
    family = inv.family
    if family is None or not family.transformers:
        raise CalcError("lora_family", model_type=inv.model_type)


@dataclass(frozen=True)
class _LoraConfig:
    """``LoraConfig`` as :func:`lora` checked it, with the model's module tree: what each of its steps reads."""

    inv: Inventory
    r: int
    bias: str
    task_type: str | None
    #: ``modules_to_save`` as given; as peft's config holds it when the adapter is injected; and after.
    explicit: tuple[str, ...]
    saved_at_injection: tuple[str, ...]
    saved_final: tuple[str, ...]
    tree: tuple[Module, ...]
    kind_of: Mapping[str, str]
    keys: tuple[str, ...]
    adaptable: tuple[str, ...]


def lora(
    inv: Inventory,
    r: Any = DEFAULT_R,
    targets: str | Sequence[str] | None = None,
    bias: str = "none",
    task_type: str | None = None,
    modules_to_save: Sequence[str] | None = None,
) -> Plan:
    """``get_peft_model(model, LoraConfig(r=r, target_modules=targets, bias=bias, task_type=task_type,
    modules_to_save=modules_to_save))`` on the model ``inv`` describes.

    Raises :class:`CalcError` where peft raises (``lora_rank``, ``lora_bias``,
    ``lora_task_type``, ``lora_target_unsupported``, ``lora_target_saved``,
    ``lora_targets_required``, ``lora_no_linear``, ``modules_to_save_nested``), and also, stricter than peft (which ignores a name that
    matches nothing as long as another one matches), ``lora_target_missing`` and
    ``modules_to_save_missing`` for a name that matches no module of this class.

    The steps are peft's own, in its order: which modules the names match; modules_to_save
    known at injection keep LoRA off theirs; the LoRA layers injected; what is trainable;
    modules_to_save wrapped as trainable copies; the totals.
    """
    cfg = _lora_config(inv, r, bias, task_type, modules_to_save)
    by_name, settings_targets = _match_targets(cfg, targets)
    targeted, skipped = _skip_saved(cfg, by_name)
    entries = _inject(inv, targeted, cfg.kind_of, cfg.r)
    trainable = _set_trainable(cfg, entries, set(targeted))
    entries, wrapped = _wrap_saved(cfg, entries, targeted, trainable)
    return _finish_plan(cfg, entries, trainable, targeted, wrapped, skipped, settings_targets)


def _lora_config(inv: Inventory, r: Any, bias: str, task_type: str | None,
                 modules_to_save: Sequence[str] | None) -> _LoraConfig:
    """``LoraConfig``'s own checks (rank, bias, task_type, module names), and the model's module tree."""
    _family_ok(inv)
    rank = _check_rank(r)
    if bias not in BIAS_MODES:
        raise CalcError("lora_bias", fields=(options.LORA_BIAS.key,), value=bias)
    if task_type in ("", None):
        task_type = None
    elif task_type not in TASK_TYPES:
        raise CalcError("lora_task_type", fields=(options.PEFT_TASK_TYPE.key,), value=task_type)
    explicit = tuple(distinct_names(options.MODULES_TO_SAVE.key, list(modules_to_save or ())))
    for m in explicit:
        if not isinstance(m, str) or not m:
            raise CalcError("modules_to_save_missing", fields=_SAVE, value=m, architecture=inv.architecture)
        if not _MODULE_NAME.fullmatch(m):
            # peft builds a regex from each entry (_in_saved); a module's name never needs more
            # than these characters, and a crafted pattern could backtrack for hours.
            raise CalcError("module_name", key="modules_to_save", value=m)
    tree = modules(inv)
    # modules_to_save as peft's config holds it when the adapter is injected
    heads = TASK_HEADS[task_type] if task_type else ()
    return _LoraConfig(
        inv=inv, r=rank, bias=bias, task_type=task_type, explicit=explicit,
        saved_at_injection=explicit + (heads if task_type in SAVED_BEFORE_INJECTION else ()),
        saved_final=explicit + heads, tree=tree, kind_of={m.name: m.kind for m in tree},
        keys=tuple(m.name for m in tree), adaptable=target_names(inv),
    )


def _match_targets(cfg: _LoraConfig, targets: str | Sequence[str] | None) -> tuple[dict[str, list[str]], Any]:
    """Which modules the names match (peft's ``check_target_module_exists``), and ``target_modules`` as peft keeps it.

    No names: peft's default for the model type. One string: a regular expression over the whole
    name, or ``all-linear``; a list: each name a module's last part(s).
    """
    inv, keys = cfg.inv, cfg.keys
    missing = {"architecture": inv.architecture, "available": _short_list(cfg.adaptable)}
    if targets is None:
        default = default_targets(inv.model_type)
        if default is None:
            raise CalcError("lora_targets_required", fields=_TARGETS, available=missing["available"])
        targets = list(default)
    if isinstance(targets, str):
        shorthand = targets.lower() == ALL_LINEAR
        if shorthand:
            matched = _all_linear(inv, cfg.tree, cfg.task_type)
        else:
            try:
                pattern = re.compile(targets)
            except re.error:
                raise CalcError("lora_target_missing", fields=_TARGETS, value=targets, **missing) from None
            matched = [k for k in keys if pattern.fullmatch(k)]
        if not matched:
            if shorthand:
                raise CalcError("lora_no_linear", fields=_TARGETS, architecture=inv.architecture)
            raise CalcError("lora_target_missing", fields=_TARGETS, value=targets, **missing)
        return {targets: matched}, targets
    names = distinct_names(options.LORA_TARGETS.key, list(targets))
    if not names:
        raise CalcError("lora_targets_required", fields=_TARGETS, available=missing["available"])
    by_name: dict[str, list[str]] = {}
    for name in names:
        hits = [k for k in keys if _matches_name(k, name)] if isinstance(name, str) and name else []
        if not hits:
            raise CalcError("lora_target_missing", fields=_TARGETS, value=name, **missing)
        by_name[name] = hits
    return by_name, names


def _skip_saved(cfg: _LoraConfig, by_name: Mapping[str, list[str]]) -> tuple[list[str], list[str]]:
    """(the modules LoRA goes on, in model order; those skipped): modules_to_save known at injection
    keep LoRA off their modules, and peft refuses a kind of layer it has no LoRA for."""
    chosen: list[str] = []
    skipped: list[str] = []
    for hits in by_name.values():
        for k in hits:
            if k in chosen or k in skipped:
                continue
            (skipped if _in_saved(k, cfg.saved_at_injection) else chosen).append(k)
    for k in chosen:
        if cfg.kind_of[k] not in LORA_KINDS:
            name = next(n for n, hits in by_name.items() if k in hits)
            raise CalcError("lora_target_unsupported", fields=_TARGETS, value=name, module=k)
        if cfg.kind_of[k] == "conv1d":
            _check_conv_rank(cfg.inv, k, cfg.r)
    if not chosen:
        raise CalcError("lora_target_saved", fields=_SAVE + _TARGETS, module=_short_list(skipped),
                        saved=_short_list(cfg.saved_at_injection))
    order = {k: i for i, k in enumerate(cfg.keys)}
    return sorted(chosen, key=order.__getitem__), skipped


def _set_trainable(cfg: _LoraConfig, entries: Sequence[_Entry], chosen: set[str]) -> dict[str, bool]:
    """Trainability by storage: the LoRA parameters, plus what the bias mode adds."""
    trainable: dict[str, bool] = {}
    for e in entries:
        trainable.setdefault(e.storage, e.kind == "lora")
    if cfg.bias == "all":
        firsts: set[str] = set()
        for e in entries:
            if e.storage in firsts:
                continue
            firsts.add(e.storage)
            if e.name == "bias" or e.name.endswith(".bias"):
                trainable[e.storage] = True
    elif cfg.bias == "lora_only":
        for e in entries:
            if e.kind == "base" and e.module in chosen and e.name.endswith(".base_layer.bias"):
                trainable[e.storage] = True
    return trainable


def _wrap_saved(cfg: _LoraConfig, entries: list[_Entry], targeted: Sequence[str],
                trainable: dict[str, bool]) -> tuple[list[_Entry], list[str]]:
    """modules_to_save: the originals frozen, trainable copies beside them (``ModulesToSaveWrapper``)."""
    keys = cfg.keys
    for m in cfg.explicit:
        if not any(k.endswith(m) for k in keys):
            raise CalcError("modules_to_save_missing", fields=_SAVE, value=m, architecture=cfg.inv.architecture)
    lora_keys = [f"{k}.{sub}" for k in targeted for sub in LORA_SUBMODULES[cfg.kind_of[k]]]
    for m in cfg.saved_final:
        inner = [k for k in lora_keys if k.endswith(m)]
        if inner:
            raise CalcError("lora_target_saved", fields=_SAVE + _TARGETS, module=inner[0].rsplit(".", 1)[0], saved=m)
    if cfg.task_type in ("SEQ_CLS", "TOKEN_CLS", "QUESTION_ANS"):
        # These task types match modules_to_save a second time over the PeftModel itself (peft_model.py, its
        # _set_trainable(self, ...)), by a plain ``endswith``: a name that ends its own "base_model" or
        # "base_model.model" ("model": the backbone of EuroBERT, NeoMME…) wraps the whole model, copies in copies.
        for m in cfg.saved_final:
            for own in ("base_model.model", "base_model"):
                if own.endswith(m):
                    raise CalcError("modules_to_save_nested", fields=_SAVE, outer=own, inner=m)
    wrapped = [k for k in keys if any(k.endswith(m) for m in cfg.saved_final)]
    for k in wrapped:
        if k in targeted:
            raise CalcError("lora_target_saved", fields=_SAVE + _TARGETS, module=k, saved=_short_list(cfg.saved_final))
    for outer in wrapped:
        for inner_key in wrapped:
            if inner_key != outer and inner_key.startswith(outer + "."):
                raise CalcError("modules_to_save_nested", fields=_SAVE, outer=outer, inner=inner_key)
    for k in wrapped:
        entries = _wrap(entries, k, trainable)
    return entries, wrapped


def _finish_plan(cfg: _LoraConfig, entries: Sequence[_Entry], trainable: Mapping[str, bool], targeted: Sequence[str],
                 wrapped: Sequence[str], skipped: Sequence[str], settings_targets: Any) -> Plan:
    """The PEFT model's tensors and totals (``print_trainable_parameters``), its warnings and its settings."""
    tensors, n_trainable, n_all = _finish(entries, trainable)
    if n_all > MAX_TOTAL:
        raise CalcError("total_too_large", value=f"{n_all:,}", maximum=f"{MAX_TOTAL:,}")
    warnings: list[PlanWarning] = []
    if skipped:
        warnings.append(PlanWarning("lora_target_skipped", {"modules": _short_list(skipped)}))
    warnings.extend(_head_warning(cfg.inv, tensors))
    settings = {
        "r": cfg.r, "target_modules": settings_targets, "bias": cfg.bias, "task_type": cfg.task_type,
        "modules_to_save": list(cfg.explicit) or None,
    }
    return Plan("lora", n_trainable, n_all, tensors, settings, tuple(targeted), tuple(wrapped), tuple(warnings))


def _all_linear(inv: Inventory, tree: Sequence[Module], task_type: str | None) -> list[str]:
    """``_maybe_include_all_linear_layers``: every nn.Linear but the output embedding (or the SEQ_CLS head)."""
    linear = [m.name for m in tree if m.kind == "linear"]
    out_emb = output_embedding(inv)
    excluded: set[str] = set()
    if out_emb is not None:
        excluded.add(out_emb)
    elif _has_output_embedding(inv):
        pass  # an output embedding that is not an nn.Linear: nothing of the list to drop
    elif task_type == "SEQ_CLS":
        names = {m.name for m in tree}
        for head in SEQ_CLS_HEAD_NAMES:
            if head in names:
                excluded.add(head)
                break
    return [k for k in linear if k not in excluded]


def _has_output_embedding(inv: Inventory) -> bool:
    arch = inv.arch
    return bool(arch is not None and arch.ties_embeddings)


@dataclass(frozen=True)
class _Entry:
    """A ``state_dict`` entry on its way through the plan: its name, storage, and where it came from."""

    name: str
    shape: tuple[int, ...]
    storage: str
    kind: str
    source: str
    module: str  # the targeted module a base/LoRA entry belongs to ("" otherwise)


def _inject(inv: Inventory, targeted: Sequence[str], kind_of: Mapping[str, str], r: int) -> list[_Entry]:
    targets = set(targeted)
    out: list[_Entry] = []
    tensors = list(inv.tensors)
    for i, t in enumerate(tensors):
        module = t.module_name
        storage = t.tied_to or t.name
        if module in targets:
            attr = t.name.rpartition(".")[2]
            out.append(_Entry(f"{module}.base_layer.{attr}", t.shape, storage, "base", t.name, module))
            last = i + 1 == len(tensors) or tensors[i + 1].module_name != module
            if last:
                out.extend(_lora_tensors(inv, module, kind_of[module], r))
        else:
            out.append(_Entry(t.name, t.shape, storage, "buffer" if t.buffer else "base", t.name, ""))
    return out


def _lora_tensors(inv: Inventory, module: str, kind: str, r: int) -> list[_Entry]:
    weight = next(t for t in inv.tensors if t.name == module + ".weight")
    if kind == "conv1d":
        return _lora_conv1d(module, weight, r)
    if kind == "embedding":
        rows, dim = weight.shape
        return [
            _Entry(f"{module}.lora_embedding_A.{ADAPTER}", (r, rows), f"{module}.lora_embedding_A", "lora", module, module),
            _Entry(f"{module}.lora_embedding_B.{ADAPTER}", (dim, r), f"{module}.lora_embedding_B", "lora", module, module),
        ]
    out_features, in_features = weight.shape
    return [
        _Entry(f"{module}.lora_A.{ADAPTER}.weight", (r, in_features), f"{module}.lora_A", "lora", module, module),
        _Entry(f"{module}.lora_B.{ADAPTER}.weight", (out_features, r), f"{module}.lora_B", "lora", module, module),
    ]


def _wrap(entries: list[_Entry], key: str, trainable: dict[str, bool]) -> list[_Entry]:
    """``ModulesToSaveWrapper``: ``key.original_module.*`` (frozen), then ``key.modules_to_save.default.*`` (trainable)."""
    prefix = key + "."
    inside = [i for i, e in enumerate(entries) if e.name.startswith(prefix)]
    if not inside:
        return entries
    start, stop = inside[0], inside[-1] + 1
    block = entries[start:stop]
    originals = []
    copies = []
    for e in block:
        rest = e.name[len(prefix):]
        originals.append(_Entry(f"{key}.original_module.{rest}", e.shape, e.storage, e.kind, e.source, e.module))
        trainable[e.storage] = False
    for e in block:
        rest = e.name[len(prefix):]
        storage = f"{key}.modules_to_save.{ADAPTER}|{e.storage}"
        copies.append(_Entry(f"{key}.modules_to_save.{ADAPTER}.{rest}", e.shape, storage, "copy", e.source, e.module))
        trainable[storage] = True
    return entries[:start] + originals + copies + entries[stop:]


def _finish(entries: Sequence[_Entry], trainable: Mapping[str, bool]) -> tuple[tuple[PlanTensor, ...], int, int]:
    first: dict[str, str] = {}
    out: list[PlanTensor] = []
    n_trainable = n_all = 0
    for e in entries:
        name = PREFIX + e.name
        tied = first.get(e.storage)
        if tied is None:
            first[e.storage] = name
        pt = PlanTensor(name, e.shape, bool(trainable.get(e.storage)), e.kind, e.source, tied)
        if tied is None and e.kind != "buffer":  # a buffer is in state_dict, not in parameters()
            n_all += pt.count
            if pt.trainable:
                n_trainable += pt.count
        out.append(pt)
    return tuple(out), n_trainable, n_all


def _head_warning(inv: Inventory, tensors: Sequence[PlanTensor]) -> list[PlanWarning]:
    """peft issue #801: a new task head (a module peft's task types would save) whose weights nothing trains."""
    rescued = {h for names in TASK_HEADS.values() for h in names}
    heads = [m for m in task_head_modules(inv) if any(m.endswith(h) for h in rescued)]
    if not heads:
        return []
    trained = {pt.source for pt in tensors if pt.trainable and pt.kind in ("base", "copy")}
    frozen = []
    for head in heads:
        weights = [t.name for t in inv.tensors if t.name.startswith(head + ".") and t.name.endswith(".weight")]
        if weights and not all(w in trained for w in weights):
            frozen.append(head)
    out = []
    if frozen:
        out.append(PlanWarning("head_frozen", {"modules": list(frozen), "suggest": ", ".join(f'"{h}"' for h in frozen)}))
    untrained = [
        m for m in inv.family.untrained_modules
        if any(t.name.startswith(m + ".") for t in inv.tensors)
        and not all(t.name in trained for t in inv.tensors if t.name.startswith(m + ".") and t.name.endswith(".weight"))
    ]
    if untrained:
        out.append(PlanWarning("pooler_random", {"modules": untrained, "suggest": ", ".join(f'"{m}"' for m in untrained)}))
    return out


# --------------------------------------------------------------------------- freeze


def freeze(inv: Inventory, embeddings: bool = False, layers: Any = 0, all_but_head: bool = False) -> Plan:
    """``requires_grad_(False)`` on the embeddings, the first ``layers`` blocks, or everything but the head.

    A shared Parameter is frozen when any of its names is (``model.base_model.requires_grad_(False)``
    also freezes an output projection tied to the word embeddings). ALBERT's blocks are its
    shared layer groups. ``all`` is the model's ``parameters()`` total.
    """
    k = coerce_int("freeze_layers", layers)
    if k < 0:
        raise CalcError("negative", key="freeze_layers", value=k)
    if k > inv.num_layers:
        raise CalcError("freeze_layers", fields=(options.FREEZE_LAYERS.key,), value=k, layers=inv.num_layers)

    def frozen(t: Tensor) -> bool:
        if embeddings and t.section == "embeddings":
            return True
        if t.layer is not None and t.layer < k:
            return True
        return bool(all_but_head and t.section != "head")

    cold = {t.tied_to or t.name for t in inv.tensors if frozen(t) or not t.trainable}
    tensors = tuple(
        PlanTensor(t.name, t.shape, (t.tied_to or t.name) not in cold, "base", t.name, t.tied_to) for t in inv.tensors
    )
    n_trainable = sum(t.count for t in tensors if t.tied_to is None and t.trainable)
    warnings: list[PlanWarning] = []
    if n_trainable == 0:
        warnings.append(PlanWarning("nothing_trainable"))
    settings = {"embeddings": bool(embeddings), "layers": k, "all_but_head": bool(all_but_head)}
    return Plan("freeze", n_trainable, inv.total, tensors, settings, warnings=tuple(warnings))


# ------------------------------------------------------------------ text from users


#: Most distinct module names a target or modules_to_save list may give. peft holds ``target_modules`` as a
#: set; a model has a few dozen distinct module names at most (BERT's classes: 16), so 64 leaves room while
#: bounding the matching work (names × modules) that a long link or ``--lora-targets`` would otherwise multiply.
MAX_NAMES = 64


def distinct_names(key: str, names: Sequence[Any]) -> list[Any]:
    """``names`` without repeats, in first-seen order (peft makes a set of ``target_modules``: a repeat adds
    nothing); more than :data:`MAX_NAMES` distinct ones is ``too_large``, beside the field ``key``.
    Entries that are not strings are kept as they are (refused by the caller)."""
    seen: set[str] = set()
    out: list[Any] = []
    for name in names:
        if isinstance(name, str):
            if name in seen:
                continue
            seen.add(name)
        out.append(name)
    if len(out) > MAX_NAMES:
        raise CalcError("too_large", key=key, value=len(out), maximum=MAX_NAMES)
    return out


def split_names(text: str | None) -> list[str] | None:
    """``"query, value"`` → ``["query", "value"]``; empty → None."""
    if text is None:
        return None
    names = [part.strip() for part in text.split(",")]
    names = [n for n in names if n]
    return names or None


def parse_targets(text: str | None) -> str | list[str] | None:
    """The CLI's / the page's ``query,value``; a lone ``all-linear`` is peft's shorthand string."""
    names = split_names(text)
    if names is not None and len(names) == 1 and names[0].lower() == ALL_LINEAR:
        return names[0]
    return names


def lora_from_text(
    inv: Inventory,
    r: str | int | None = None,
    targets: str | None = None,
    bias: str | None = None,
    task_type: str | None = None,
    modules_to_save: str | None = None,
) -> Plan:
    """:func:`lora` from strings as a shell or an address gives them (comma-separated lists)."""
    return lora(
        inv,
        DEFAULT_R if r in (None, "") else r,
        parse_targets(targets),
        bias or "none",
        task_type or None,
        split_names(modules_to_save),
    )


# ------------------------------------------------------------------ convolutions


def _check_conv_rank(inv: Inventory, module: str, r: int) -> None:
    """peft's ``lora.Conv1d`` refuses a rank its layer's ``groups`` does not divide (``ValueError``)."""
    weight = next(t for t in inv.tensors if t.name == module + ".weight")
    if r % weight.groups != 0:
        raise CalcError("lora_conv_groups", fields=_R + _TARGETS, module=module, groups=weight.groups, value=r)


def _lora_conv1d(module: str, weight: Tensor, r: int) -> list[_Entry]:
    """``lora.Conv1d``: lora_A a Conv1d(in, r, kernel) without groups, lora_B a Conv1d(r, out, 1, groups)."""
    out_channels, per_group, kernel = weight.shape
    in_channels = per_group * weight.groups
    return [
        _Entry(f"{module}.lora_A.{ADAPTER}.weight", (r, in_channels, kernel), f"{module}.lora_A", "lora", module, module),
        _Entry(f"{module}.lora_B.{ADAPTER}.weight", (out_channels, r // weight.groups, 1), f"{module}.lora_B", "lora",
               module, module),
    ]
