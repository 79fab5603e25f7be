"""What every model family declares: its fields, its architectures, and how it builds tensors."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from ..config import Field
from ..model import KerasLayer, Tensor, TensorList

#: A head adds the task-specific tensors after the backbone.
HeadBuilder = Callable[[TensorList, dict[str, Any], str], None]


@dataclass(frozen=True)
class Architecture:
    """One model class of a family.

    ``prefix`` is the attribute name of the backbone inside the class
    (``"bert."`` inside ``BertForMaskedLM``, ``""`` for ``BertModel``);
    ``pooler`` is ``True``/``False`` when the class fixes it, ``None`` when
    the caller may choose (``add_pooling_layer``, default on).
    """

    name: str
    prefix: str
    pooler: bool | None
    head: HeadBuilder | None = None
    uses_num_labels: bool = False
    ties_embeddings: bool = False
    #: Some heads refuse any other label count (DistilBERT's QA head needs exactly 2).
    labels_must_be: int | None = None


@dataclass(frozen=True)
class Family:
    model_type: str
    base: str
    fields: tuple[Field, ...]
    architectures: tuple[Architecture, ...]
    #: Builds the backbone (embeddings, encoder, pooler) with names relative to the prefix.
    backbone: Callable[[TensorList, dict[str, Any], str, bool], None] | None = None
    #: HF ``attribute_map``: generic names accepted for this family's own keys.
    aliases: dict[str, str] = field(default_factory=dict)
    #: (hidden key, heads key) that must divide, or None.
    heads_check: tuple[str, str] | None = None
    #: Families that are not built from a backbone + head (keras-bert, the 2018 Transformer)
    #: supply a whole builder instead; it returns tensors and (optionally) Keras layers.
    custom: Callable[[dict[str, Any], str], tuple[tuple[Tensor, ...], tuple[KerasLayer, ...]]] | None = None
    #: HF's default ``pad_token_id``: ``nn.Embedding`` refuses a padding index outside the table.
    pad_token_id: int | None = 0
    #: Whether the position table also takes ``padding_idx`` (RoBERTa's does).
    positions_padded: bool = False
    #: Families whose arguments are not all integers/booleans (keras-bert's ``dropout_rate``,
    #: its prefix-list ``trainable``) read the raw config themselves.
    read: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None
    #: One line per family for menus and the explainer.
    title: dict[str, str] = field(default_factory=dict)

    def architecture(self, name: str) -> Architecture | None:
        for arch in self.architectures:
            if arch.name == name:
                return arch
        return None

    @property
    def architecture_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.architectures)
