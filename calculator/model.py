"""The heart of the calculator: a declarative list of the tensors a model creates.

Every number the project prints (totals, groups, per-layer sums, tables, charts,
the page's calculator) is a *view* of an :class:`Inventory`. Nothing is counted
anywhere else, so the views cannot disagree with each other.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

#: Component groups, in the order the views list them.
GROUPS: tuple[str, ...] = (
    "vision",  # a composite's vision tower (ModernVBERT's, UltraVBERT's SigLIP), before the text it feeds
    "embeddings",
    "attention_qkv",
    "attention_output",
    "feed_forward",
    "layer_norm",
    "relative_position",
    "pooler",
    "head",
)


#: Parts of the model, in the order the hierarchical views list them.
SECTIONS: tuple[str, ...] = ("embeddings", "encoder", "decoder", "pooler", "head")


@dataclass(frozen=True)
class Tensor:
    """One entry of the model's ``state_dict``.

    ``tied_to`` names the *first* ``state_dict`` entry that shares this tensor's
    storage (as ``named_parameters()`` would keep it); a tied entry stays in the
    list, because people see it in printouts, but counts once in ``total``.
    ``owner`` names the entry the shared storage is *charged to* in breakdowns (the
    embedding, even where a class registers its head first and the head's name
    comes first); it is None for a tensor that shares nothing or owns its storage.
    ``layer`` is the index of the encoder block the tensor belongs to (ALBERT:
    the index of the shared layer group), or ``None`` outside the stack.
    ``section`` is the part of the model it is listed under (:data:`SECTIONS`).
    """

    name: str
    shape: tuple[int, ...]
    group: str
    layer: int | None = None
    tied_to: str | None = None
    trainable: bool = True
    #: Which stack a layer tensor belongs to: "encoder", or "decoder" (the 2018 Transformer).
    stack: str = "encoder"
    section: str = "embeddings"
    owner: str | None = None
    #: The kind of module that holds it: "linear", "embedding", "layer_norm", or "" (a bare
    #: Parameter or another module). ``num_parameters(exclude_embeddings=True)`` leaves out
    #: embedding weights; peft's LoRA can target linear and embedding modules.
    module: str = ""
    #: For a convolution (``module == "conv1d"``): its ``groups``; its ``in_channels`` is
    #: ``shape[1] × groups`` (peft's LoRA on a convolution needs both).
    groups: int = 1
    #: A persistent buffer (``nn.Buffer``/``register_buffer``): in ``state_dict``, not in
    #: ``parameters()`` (ESM's rotary ``inv_freq``), so no total but the ``state_dict`` sum counts it.
    buffer: bool = False

    @property
    def embedding(self) -> bool:
        """The weight of an ``nn.Embedding`` module."""
        return self.module == "embedding"

    @property
    def module_name(self) -> str:
        """The name of the module that holds it (``encoder.layer.0.attention.self.query``)."""
        return self.name.rpartition(".")[0]

    #: The number of elements, worked out once: an answer reads it hundreds of thousands of times.
    count: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "count", math.prod(self.shape))  # frozen: the dataclass-documented way


@dataclass(frozen=True)
class KerasLayer:
    """One row of a Keras ``model.summary()``: layer name, class and parameter count."""

    name: str
    cls: str
    count: int
    trainable: bool = True


@dataclass(frozen=True)
class Inventory:
    """Everything a model creates, plus the settings it was built from.

    The totals are cached: a view asks for them many times per answer, and the
    inventory is immutable.

    ``config`` holds the normalised hyperparameters (defaults filled in) so a
    view can substitute them into a formula or a share link.
    """

    model_type: str
    architecture: str
    config: dict[str, Any]
    tensors: tuple[Tensor, ...]
    pooler: bool = False
    keras_layers: tuple[KerasLayer, ...] = field(default=())
    #: What it was built from: the :class:`~calculator.families.base.Family` and its
    #: :class:`~calculator.families.base.Architecture` (typed ``Any``: this module is below
    #: the families). Views, peft and the page read them here instead of looking the
    #: family up again by ``model_type``.
    family: Any = field(default=None, compare=False, repr=False)
    arch: Any = field(default=None, compare=False, repr=False)

    @cached_property
    def unique(self) -> tuple[Tensor, ...]:
        """The tensors ``model.parameters()`` yields: tied duplicates dropped."""
        return tuple(t for t in self.tensors if t.tied_to is None and not t.buffer)

    @cached_property
    def charged(self) -> tuple[Tensor, ...]:
        """The same parameters as :attr:`unique`, each shared storage listed under its owner.

        Breakdowns (groups, sections, layers, the embedding split) sum these, so
        where a class registers its head first the tied embedding still counts as
        an embedding; the totals are the same as :attr:`unique`'s.
        """
        return tuple(
            t for t in self.tensors
            if not t.buffer and ((t.tied_to is None) if t.owner is None else t.owner == t.name)
        )

    @cached_property
    def total(self) -> int:
        """``sum(p.numel() for p in model.parameters())``: ties count once."""
        return sum(t.count for t in self.unique)

    @cached_property
    def trainable(self) -> int:
        return sum(t.count for t in self.unique if t.trainable)

    @property
    def non_trainable(self) -> int:
        return self.total - self.trainable

    @cached_property
    def state_dict_total(self) -> int:
        """Sum over ``state_dict`` entries: a tied tensor once per name."""
        return sum(t.count for t in self.tensors)

    @property
    def num_layers(self) -> int:
        layers = [t.layer for t in self.tensors if t.layer is not None]
        return max(layers) + 1 if layers else 0


class TensorList:
    """A small builder that keeps ``state_dict`` order while a family describes its modules.

    The helpers mirror the PyTorch modules (``nn.Linear`` stores ``weight`` as
    ``[out, in]`` then ``bias``; ``nn.LayerNorm`` stores ``weight`` and, unless
    ``bias=False``, ``bias``), which keeps each family's description close to the
    code it mirrors. A shared Parameter is declared by naming its owner
    (``shares=``), whatever the order: :meth:`tensors` works out which name comes
    first in ``state_dict`` (``tied_to``), as ``named_parameters()`` would.
    """

    def __init__(self) -> None:
        self.items: list[Tensor] = []

    def add(
        self,
        name: str,
        shape: tuple[int, ...],
        group: str,
        layer: int | None = None,
        shares: str | None = None,
        trainable: bool = True,
        stack: str = "encoder",
        section: str | None = None,
        embedding: bool = False,
        module: str = "",
    ) -> None:
        if group not in GROUPS:
            raise ValueError(f"unknown group {group!r}")
        if section is None:
            section = section_for(group, layer, stack)
        if section not in SECTIONS:
            raise ValueError(f"unknown section {section!r}")
        kind = "embedding" if embedding else module
        self.items.append(Tensor(name, tuple(shape), group, layer, None, trainable, stack, section, shares, kind))

    def embedding(
        self,
        prefix: str,
        rows: int,
        dim: int,
        group: str = "embeddings",
        layer: int | None = None,
        shares: str | None = None,
        trainable: bool = True,
        section: str | None = None,
    ) -> None:
        """An ``nn.Embedding(rows, dim)``: one ``weight`` of shape ``[rows, dim]``."""
        self.add(prefix + ".weight", (rows, dim), group, layer, shares, trainable, section=section, embedding=True)

    def linear(
        self,
        prefix: str,
        out_features: int,
        in_features: int,
        group: str,
        layer: int | None = None,
        bias: bool = True,
        stack: str = "encoder",
        section: str | None = None,
    ) -> None:
        self.add(prefix + ".weight", (out_features, in_features), group, layer, stack=stack, section=section,
                 module="linear")
        if bias:
            self.add(prefix + ".bias", (out_features,), group, layer, stack=stack, section=section, module="linear")

    def layer_norm(
        self,
        prefix: str,
        dim: int,
        group: str = "layer_norm",
        layer: int | None = None,
        stack: str = "encoder",
        bias: bool = True,
        section: str | None = None,
    ) -> None:
        self.add(prefix + ".weight", (dim,), group, layer, stack=stack, section=section, module="layer_norm")
        if bias:
            self.add(prefix + ".bias", (dim,), group, layer, stack=stack, section=section, module="layer_norm")

    def tensors(self) -> tuple[Tensor, ...]:
        """The entries in order, ``tied_to`` set to the first name of each shared storage.

        A tensor declared with ``shares=X`` uses X's storage; the owner X itself is
        marked ``owner=X`` too, so views can charge the storage to it.
        """
        names = {t.name for t in self.items}
        missing = [t.owner for t in self.items if t.owner is not None and t.owner not in names]
        if missing:
            raise ValueError(f"shares storage with tensors that do not exist: {missing}")
        root = {t.name: t.owner for t in self.items if t.owner is not None}

        def resolve(name: str) -> str:
            seen = {name}
            while name in root:
                name = root[name]
                if name in seen:
                    raise ValueError(f"tensors share storage in a cycle: {sorted(seen)}")
                seen.add(name)
            return name

        owners = {resolve(n) for n in root}
        first: dict[str, str] = {}
        out: list[Tensor] = []
        for t in self.items:
            key = resolve(t.name) if t.name in root else (t.name if t.name in owners else None)
            if key is None:  # shares nothing (so declared without ``shares=``): kept as it is
                out.append(t)
                continue
            tied = first.get(key)
            if tied is None:
                first[key] = t.name
            out.append(replace(t, tied_to=tied, owner=key))
        return tuple(out)

    def conv1d(
        self,
        prefix: str,
        out_channels: int,
        in_channels: int,
        kernel_size: int,
        group: str,
        layer: int | None = None,
        groups: int = 1,
        bias: bool = True,
        section: str | None = None,
    ) -> None:
        """An ``nn.Conv1d``: ``weight`` [out, in / groups, kernel], then ``bias`` [out] (SqueezeBERT, ConvBERT)."""
        for name, shape in ((".weight", (out_channels, in_channels // groups, kernel_size)), (".bias", (out_channels,))):
            if name == ".bias" and not bias:
                continue
            self.add(prefix + name, shape, group, layer, section=section, module="conv1d")
            self.items[-1] = replace(self.items[-1], groups=groups)
    def buffer(self, name: str, shape: tuple[int, ...], group: str, section: str | None = None) -> None:
        """A persistent buffer: listed in ``state_dict`` (and saved), never a parameter, never trained."""
        self.add(name, shape, group, trainable=False, section=section)
        self.items[-1] = replace(self.items[-1], buffer=True)


def section_for(group: str, layer: int | None, stack: str) -> str:
    """Where a tensor is listed when the family does not say: its stack, the pooler, the head, or the embeddings."""
    if layer is not None:
        return stack
    if group in ("pooler", "head"):
        return group
    return "embeddings"
