"""The heart of the calculator: a declarative list of the tensors a model creates.

Every number the project prints (totals, groups, per-layer sums, tables, charts,
the page's calculator) is a *view* of an :class:`Inventory`. Nothing is counted
anywhere else, so the views cannot disagree with each other.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

#: Component groups, in the order the views list them.
GROUPS: tuple[str, ...] = (
    "embeddings",
    "attention_qkv",
    "attention_output",
    "feed_forward",
    "layer_norm",
    "pooler",
    "head",
)


def product(shape: tuple[int, ...]) -> int:
    """Element count of a shape (``math.prod`` with an explicit empty case)."""
    count = 1
    for dim in shape:
        count *= dim
    return count


@dataclass(frozen=True)
class Tensor:
    """One entry of the model's ``state_dict``.

    ``tied_to`` names the *first* ``state_dict`` entry that shares this tensor's
    storage (as ``named_parameters()`` would keep it); a tied entry stays in the
    list, because people see it in printouts, but counts once in ``total``.
    ``layer`` is the index of the encoder block the tensor belongs to (ALBERT:
    the index of the shared layer group), or ``None`` outside the stack.
    """

    name: str
    shape: tuple[int, ...]
    group: str
    layer: int | None = None
    tied_to: str | None = None
    trainable: bool = True
    #: Which stack a layer tensor belongs to: "encoder", or "decoder" (the 2018 Transformer).
    stack: str = "encoder"

    @property
    def count(self) -> int:
        return product(self.shape)


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

    @cached_property
    def unique(self) -> tuple[Tensor, ...]:
        """The tensors ``model.parameters()`` yields: tied duplicates dropped."""
        return tuple(t for t in self.tensors if t.tied_to is None)

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
    ``[out, in]`` then ``bias``; ``nn.LayerNorm`` stores ``weight`` and ``bias``),
    which keeps each family's description close to the code it mirrors.
    """

    def __init__(self) -> None:
        self.items: list[Tensor] = []

    def add(
        self,
        name: str,
        shape: tuple[int, ...],
        group: str,
        layer: int | None = None,
        tied_to: str | None = None,
        trainable: bool = True,
        stack: str = "encoder",
    ) -> None:
        if group not in GROUPS:
            raise ValueError(f"unknown group {group!r}")
        self.items.append(Tensor(name, tuple(shape), group, layer, tied_to, trainable, stack))

    def linear(
        self,
        prefix: str,
        out_features: int,
        in_features: int,
        group: str,
        layer: int | None = None,
        bias: bool = True,
        stack: str = "encoder",
    ) -> None:
        self.add(prefix + ".weight", (out_features, in_features), group, layer, stack=stack)
        if bias:
            self.add(prefix + ".bias", (out_features,), group, layer, stack=stack)

    def layer_norm(
        self, prefix: str, dim: int, group: str = "layer_norm", layer: int | None = None, stack: str = "encoder"
    ) -> None:
        self.add(prefix + ".weight", (dim,), group, layer, stack=stack)
        self.add(prefix + ".bias", (dim,), group, layer, stack=stack)

    def tuple(self) -> tuple[Tensor, ...]:
        return tuple(self.items)
