"""Every count a reader meets, reconciled with ``sum(p.numel() for p in model.parameters())``.

Tools disagree about a model's size for reasons that are all in the tensor list:
``state_dict`` lists a tied tensor once per name, ``num_parameters(exclude_embeddings=True)``
leaves out ``nn.Embedding`` weights (and nothing else), torchinfo adds each module's
count and so counts a weight shared by two modules twice, ``save_pretrained`` writes a
tied tensor once, under the name transformers reloads it by. Each :class:`Count` here
is one tool's number, named as that tool names it, with the tensors that separate it
from the ``parameters()`` total.

How each count is worked out (and where it was checked against the real library,
``tests/crosscheck/test_counts_reference.py``):

* ``parameters``: ``named_parameters()`` keeps one name per shared Parameter
  (:attr:`Inventory.total`).
* ``num_parameters`` / ``num_parameters_exclude_embeddings``: transformers'
  ``PreTrainedModel.num_parameters``; it sums ``named_parameters()`` and, with
  ``exclude_embeddings=True``, skips ``<module>.weight`` of each ``nn.Embedding``
  module, under the name ``named_parameters()`` keeps (:func:`calculator.views.num_parameters`).
* ``state_dict``: every entry, a tied tensor once per name.
* ``save_pretrained``: transformers 5.23's ``remove_tied_weights_from_state_dict``
  drops, from each group of names sharing storage, the names its ``_tied_weights_keys``
  declare as tied copies and keeps the one it reloads from: the embedding (the
  tensor's :attr:`~calculator.model.Tensor.owner`), even where a class registers its
  head first. The file's header therefore holds each storage once, and the Hub's
  parameter count (read from that header) equals the ``parameters()`` total of the
  class that was saved.
* ``torchinfo``: ``torchinfo.summary(model)`` (1.8.0, no input) adds, for every module,
  ``max(0, n(module) − Σ n(child))``, where ``n`` counts the module's
  ``named_parameters()`` (each shared Parameter once *within* that module). A weight
  shared by two modules in different branches is counted in both; the common ancestor's
  negative remainder is clipped to 0 rather than subtracted. A bias shared with a
  Parameter of the parent module itself (``cls.predictions.bias``) cancels out.
* ``keras_count_params``: Keras' ``model.count_params()``, each weight variable once.
"""
from __future__ import annotations

from typing import Any

from .i18n import L, pick
from .model import Inventory, Tensor
from .record import Record
from .views.breakdown import num_parameters


class Count(Record):
    """One tool's count.

    ``value`` = the ``parameters()`` total + the elements of ``added`` − those of
    ``removed`` (both lists of ``state_dict`` names). ``labels`` is the tool's own
    name for the number, ``code`` the call that prints it, ``note`` why it differs
    (or not), each in English and Chinese. A frozen record (:mod:`calculator.record`).
    """

    __slots__ = ("key", "value", "code", "labels", "note", "added", "removed", "base")
    key: str
    value: int
    code: str
    labels: dict[str, str]
    note: dict[str, str]
    added: tuple[str, ...]
    removed: tuple[str, ...]
    #: Set by :func:`reconcile`: the ``parameters()`` total the delta is taken from.
    base: int

    def __init__(self, key: str, value: int, code: str, labels: dict[str, str], note: dict[str, str],
                 added: tuple[str, ...] = (), removed: tuple[str, ...] = (), base: int = 0) -> None:
        self._set(key=key, value=value, code=code, labels=labels, note=note, added=added, removed=removed, base=base)

    @property
    def delta(self) -> int:
        """``value`` minus the ``parameters()`` total."""
        return self.value - self.base

    def label(self, lang: str = "en") -> str:
        return pick(self.labels, lang)

    def to_dict(self, lang: str | None = None) -> dict[str, Any]:
        """Plain data (the CLI's JSON, the page); ``lang`` picks one language for labels and note."""
        out: dict[str, Any] = {
            "key": self.key,
            "value": self.value,
            "delta": self.delta,
            "code": self.code,
            "labels": dict(self.labels),
            "note": dict(self.note),
            "added": list(self.added),
            "removed": list(self.removed),
        }
        if lang is not None:
            out["label"] = self.label(lang)
            out["note"] = pick(self.note, lang)
        return out


#: The tool's own name (labels), the call, and why it differs, per count key.
TOOLS: dict[str, tuple[str, dict[str, str], dict[str, str]]] = {
    "parameters": (
        "sum(p.numel() for p in model.parameters())",
        L("PyTorch: sum of model.parameters()", "PyTorch：model.parameters() 之和"),
        L(
            "Each Parameter once: a weight shared by two modules is yielded under its first name only.",
            "每个 Parameter 只算一次：两个模块共享的权重只以第一个名字出现。",
        ),
    ),
    "num_parameters": (
        "model.num_parameters()",
        L("transformers: model.num_parameters()", "transformers：model.num_parameters()"),
        L(
            "transformers sums named_parameters(), so it equals the parameters() total.",
            "transformers 对 named_parameters() 求和，因此与 parameters() 的总数相同。",
        ),
    ),
    "num_parameters_exclude_embeddings": (
        "model.num_parameters(exclude_embeddings=True)",
        L(
            "transformers: model.num_parameters(exclude_embeddings=True)",
            "transformers：model.num_parameters(exclude_embeddings=True)",
        ),
        L(
            "Leaves out the weight of every nn.Embedding module and nothing else: the embedding LayerNorm and "
            "any projection stay in, and a shared weight listed first under a head's name is kept.",
            "只去掉每个 nn.Embedding 模块的权重：嵌入层的 LayerNorm 和各种投影仍然计入；"
            "共享权重若先以任务头的名字出现，也会保留。",
        ),
    ),
    "state_dict": (
        "sum(t.numel() for t in model.state_dict().values())",
        L("PyTorch: sum over model.state_dict()", "PyTorch：model.state_dict() 之和"),
        L(
            "Every entry, so a shared weight counts once per name.",
            "逐个条目求和，共享的权重每个名字各算一次。",
        ),
    ),
    "save_pretrained": (
        "model.save_pretrained(path)  # model.safetensors",
        L(
            "Hugging Face Hub: parameters in the safetensors file save_pretrained writes",
            "Hugging Face Hub：save_pretrained 写出的 safetensors 文件中的参数量",
        ),
        L(
            "safetensors stores no aliases: a tied weight is written once, under the name transformers loads it "
            "into (the embedding), so the file (and the Hub's count) equals the parameters() total of the class saved.",
            "safetensors 不保存别名：共享的权重只写一次，用 transformers 加载时使用的名字（词嵌入），"
            "因此文件中的参数量（也就是 Hub 显示的数字）等于所保存的类的 parameters() 总数。",
        ),
    ),
    "torchinfo": (
        "torchinfo.summary(model).total_params",
        L("torchinfo 1.8.0: Total params", "torchinfo 1.8.0：Total params"),
        L(
            "torchinfo adds up module by module: a weight shared by modules in different branches "
            "(the output projection and the word embedding) is counted in each of them.",
            "torchinfo 逐个模块累加：分属不同分支的模块共享同一个权重时（输出投影与词嵌入），每个模块各算一次。",
        ),
    ),
    "keras_count_params": (
        "model.count_params()",
        L("Keras: model.count_params()", "Keras：model.count_params()"),
        L(
            "Each weight variable once; the summary's Total params is the same number.",
            "每个权重变量只算一次；model.summary() 中的 Total params 也是这个数。",
        ),
    ),
}


def _count(inv: Inventory, key: str, value: int, added: list[str] | tuple[str, ...] = (),
           removed: list[str] | tuple[str, ...] = ()) -> Count:
    code, labels, note = TOOLS[key]
    return Count(key, value, code, dict(labels), dict(note), tuple(added), tuple(removed), inv.total)


def storage(t: Tensor) -> str:
    """The name that identifies a tensor's storage: its first ``state_dict`` name."""
    return t.tied_to or t.name


def is_transformers(inv: Inventory) -> bool:
    """Whether transformers builds this inventory's family (num_parameters, save_pretrained apply)."""
    return bool(inv.family is not None and inv.family.transformers)


def is_keras(inv: Inventory) -> bool:
    return bool(inv.keras_layers)


# ------------------------------------------------------------------ save_pretrained


def saved_names(inv: Inventory) -> tuple[str, ...]:
    """The ``state_dict`` names ``save_pretrained`` writes, in ``state_dict`` order.

    From each group of names sharing storage, transformers keeps the one it loads the
    weight into (the owner: the input embedding, or the head's own bias Parameter) and
    drops the declared tied copies.
    """
    return tuple(t.name for t in inv.tensors if t.owner is None or t.owner == t.name)


def save_pretrained_count(inv: Inventory) -> Count:
    value = sum(t.count for t in inv.tensors if t.owner is None or t.owner == t.name)
    # a persistent buffer is written too, though no parameter
    return _count(inv, "save_pretrained", value, added=[t.name for t in inv.tensors if t.buffer])


# ------------------------------------------------------------------------ the Hub


#: Presets whose published ``model.safetensors`` we know the tensors of: the class that
#: file was written from (not the class config.json's ``architectures`` lists), and where
#: a reader checks it. The Hub's count is that file's, so :func:`hub_count` computes it
#: for that class; for any other preset the Hub's number is not known here.
HUB_FILES: dict[str, tuple[str, str]] = {
    # Converted from Google's TensorFlow pre-training checkpoint: the encoder, the pooler
    # and both pre-training heads (cls.predictions, cls.seq_relationship); the Hub's
    # model page shows "110M params" for it.
    "bert-base-uncased": ("BertForPreTraining", "https://huggingface.co/google-bert/bert-base-uncased"),
}


class HubCount(Record):
    """What the Hub shows for a preset: the parameters its published file stores (a frozen record)."""

    __slots__ = ("preset", "architecture", "value", "source")
    preset: str
    architecture: str
    value: int
    source: str

    def __init__(self, preset: str, architecture: str, value: int, source: str) -> None:
        self._set(preset=preset, architecture=architecture, value=value, source=source)


def hub_count(inv: Inventory, preset: str | None) -> HubCount | None:
    """The Hub's count for ``preset``'s published file, when known and ``inv`` is that preset's model.

    None when the preset's file is not in :data:`HUB_FILES`, or when ``inv`` was built
    from other values than the preset's (a changed preset is no longer the published file).
    """
    if not preset or preset not in HUB_FILES:
        return None
    from .build import build
    from .presets import PRESETS

    published = PRESETS.get(preset)
    if published is None or published.config.get("model_type") != inv.model_type:
        return None
    if any(inv.config.get(k) != v for k, v in published.config.items() if k != "model_type"):
        return None
    architecture, source = HUB_FILES[preset]
    if preset not in _HUB_VALUES:  # a preset is immutable: its published file's count is computed once
        _HUB_VALUES[preset] = save_pretrained_count(build(published.config, architecture)).value
    return HubCount(preset, architecture, _HUB_VALUES[preset], source)


#: :func:`hub_count`'s value per preset, filled on first use (every answer for a picked preset asks).
_HUB_VALUES: dict[str, int] = {}


# ------------------------------------------------------------------------ torchinfo


def torchinfo_total(inv: Inventory) -> tuple[int, tuple[str, ...]]:
    """torchinfo 1.8.0's ``Total params`` without input, and the names it counts twice.

    ``n(m)`` = the unique storage under module ``m``; each module adds
    ``max(0, n(m) − Σ n(child))`` (``ModelStatistics``, ``LayerInfo.leftover_params``).
    A module holding nothing but a shared weight's two branches gets a negative
    remainder, clipped to 0: that is the double count, and the names listed are the
    copies in the later branches.
    """
    # Each module's chain is its parent's plus itself, worked out once per module, not once
    # per tensor (a weight and its bias share it); a storage nothing else shares adds its
    # count to each ancestor once per module, after the loop. ``sizes`` keeps the order
    # modules first appear in, the root first: the order the double-counted names are found in.
    sizes: dict[str, int] = {"": 0}
    seen: set[tuple[str, str]] = set()
    children: dict[str, set[str]] = {}
    chains: dict[str, list[str]] = {"": [""]}
    unshared: dict[str, int] = {}

    def chain_of(module: str) -> list[str]:
        chain = chains.get(module)
        if chain is None:
            parent = chain_of(module.rpartition(".")[0])
            chain = chains[module] = [*parent, module]
            children.setdefault(parent[-1], set()).add(module)
            sizes[module] = 0
        return chain

    for t in inv.tensors:
        if t.buffer:
            continue  # torchinfo counts parameters only
        name = t.module_name
        chain = chain_of(name)
        if t.owner is None and t.tied_to is None:
            unshared[name] = unshared.get(name, 0) + t.count
            continue
        key = storage(t)
        for module in chain:
            if (module, key) not in seen:
                seen.add((module, key))
                sizes[module] += t.count
    for name, count in unshared.items():
        for module in chains[name]:
            sizes[module] += count
    total = 0
    negative: list[str] = []
    for module, n in sizes.items():
        rest = n - sum(sizes[c] for c in children.get(module, ()))
        if rest > 0:
            total += rest
        elif rest < 0:
            negative.append(module)
    added: list[str] = []
    if negative:
        added = _double_counted(inv, negative, children)
    return total, tuple(added)


def _double_counted(inv: Inventory, modules: list[str], children: dict[str, set[str]]) -> list[str]:
    """Names of shared weights that a clipped module's children count again, in ``state_dict`` order."""
    names: set[str] = set()
    for module in modules:
        branch_of: dict[str, dict[str, str]] = {}  # storage → {child branch: first name in it}
        for t in inv.tensors:
            if t.owner is None and t.tied_to is None:
                continue
            prefix = module + "." if module else ""
            if not t.name.startswith(prefix):
                continue
            rest = t.name[len(prefix):]
            head = rest.split(".", 1)[0]
            child = prefix + head
            if child not in children.get(module, ()):
                continue  # a Parameter of the module itself
            branches = branch_of.setdefault(storage(t), {})
            branches.setdefault(child, t.name)
        for branches in branch_of.values():
            for first in list(branches.values())[1:]:
                names.add(first)
    return [t.name for t in inv.tensors if t.name in names]


# ---------------------------------------------------------------------------- all


def reconcile(inv: Inventory) -> tuple[Count, ...]:
    """Every count that applies to this inventory, the ``parameters()`` total first.

    transformers families: parameters, num_parameters (both), state_dict,
    save_pretrained, torchinfo. Other PyTorch models (the 2018 Transformer):
    parameters, state_dict, torchinfo. keras-bert: Keras' ``count_params()``.
    """
    if is_keras(inv):
        return (_count(inv, "keras_count_params", inv.total),)
    out = [_count(inv, "parameters", inv.total)]
    hf = is_transformers(inv)
    if hf:
        out.append(_count(inv, "num_parameters", num_parameters(inv)))
        embeddings = [t.name for t in inv.unique if t.embedding]
        out.append(_count(inv, "num_parameters_exclude_embeddings", num_parameters(inv, exclude_embeddings=True),
                          removed=embeddings))
    out.append(_count(inv, "state_dict", inv.state_dict_total, added=[t.name for t in inv.tensors if t.tied_to or t.buffer]))
    if hf:
        out.append(save_pretrained_count(inv))
    value, twice = torchinfo_total(inv)
    out.append(_count(inv, "torchinfo", value, added=twice))
    return tuple(out)


def counts_json(inv: Inventory) -> list[dict[str, Any]]:
    """:func:`reconcile` as plain data (both languages)."""
    return [c.to_dict() for c in reconcile(inv)]
