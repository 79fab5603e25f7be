"""Breakdowns of an :class:`~calculator.model.Inventory`: groups, sections, layers, the embedding split,
``num_parameters()``, weight memory and the family's formula.

Plain data (frozen records and integers): the report, JSON, HTML and SVG renderers all
read these, so they cannot disagree.
"""
from __future__ import annotations

from ..build import base_model
from ..formula import Formula, FormulaLine
from ..i18n import label
from ..model import GROUPS, SECTIONS, Inventory, Tensor
from ..record import Record
from .numbers import fmt_int

#: Bytes per parameter for the weight-memory view.
DTYPES: tuple[tuple[str, int], ...] = (("fp32", 4), ("fp16", 2), ("bf16", 2), ("int8", 1))


class Share(Record):
    """A group's count and its share of the total (a frozen record: :mod:`calculator.record`)."""

    __slots__ = ("key", "count", "fraction")
    key: str
    count: int
    fraction: float

    def __init__(self, key: str, count: int, fraction: float) -> None:
        self._set(key=key, count=count, fraction=fraction)


class Section(Record):
    """A section's share of the total, and its groups' (a frozen record: :mod:`calculator.record`)."""

    __slots__ = ("key", "count", "fraction", "children")
    key: str
    count: int
    fraction: float
    children: tuple[Share, ...]

    def __init__(self, key: str, count: int, fraction: float, children: tuple[Share, ...] = ()) -> None:
        self._set(key=key, count=count, fraction=fraction, children=children)


def _fraction(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def section_of(t: Tensor) -> str:
    """Embeddings, the encoder (or decoder), the pooler, or the task head: as the family declared it."""
    return t.section


def group_breakdown(inv: Inventory) -> list[Share]:
    """Unique parameters per component group, in :data:`GROUPS` order, empty groups left out."""
    total = inv.total
    sums = {g: 0 for g in GROUPS}
    for t in inv.charged:
        sums[t.group] += t.count
    return [Share(g, n, _fraction(n, total)) for g, n in sums.items() if n]


def section_breakdown(inv: Inventory) -> list[Section]:
    """The nanoGPT-style hierarchy: sections, each split by component group."""
    total = inv.total
    # One pass over the tensors (each answer shows this in the page and both copies).
    sums: dict[str, dict[str, int]] = {}
    for t in inv.charged:
        groups = sums.setdefault(section_of(t), {})
        groups[t.group] = groups.get(t.group, 0) + t.count
    out: list[Section] = []
    for s in SECTIONS:
        if s not in sums:
            continue
        count = sum(sums[s].values())
        children = [Share(g, sums[s][g], _fraction(sums[s][g], total)) for g in GROUPS if sums[s].get(g)]
        out.append(Section(s, count, _fraction(count, total), tuple(children)))
    return out


class LayerRow(Record):
    """One encoder block's parameters (a frozen record)."""

    __slots__ = ("layer", "count")
    layer: int
    count: int

    def __init__(self, layer: int, count: int) -> None:
        self._set(layer=layer, count=count)


def per_layer(inv: Inventory) -> list[LayerRow]:
    """Unique parameters of each encoder block (ALBERT: of each shared layer group)."""
    sums: dict[int, int] = {}
    for t in inv.charged:
        if t.layer is not None:
            sums[t.layer] = sums.get(t.layer, 0) + t.count
    return [LayerRow(i, sums[i]) for i in sorted(sums)]


def embedding_split(inv: Inventory) -> tuple[int, int]:
    """(the whole embedding layer, everything after it): one of the two "backbone" splits.

    The embedding layer is the embeddings *section*: its tables, its LayerNorm and any
    projection. A tied output projection is charged to the embedding it shares
    (nanoGPT's definition); where a class registers its head first, the shared table
    still counts here (:attr:`Inventory.charged`). The other split is transformers'
    :func:`num_parameters` with ``exclude_embeddings=True``; a model card's round
    "backbone" figure comes from one of the two.
    """
    emb = sum(t.count for t in inv.charged if t.section == "embeddings")
    return emb, inv.total - emb


def num_parameters(inv: Inventory, exclude_embeddings: bool = False) -> int:
    """transformers' ``model.num_parameters(exclude_embeddings=...)``, by its definition.

    It sums ``named_parameters()`` (each shared Parameter once, under its first
    name) and, with ``exclude_embeddings``, skips the names ``<module>.weight`` of
    every ``nn.Embedding`` module. So the embedding LayerNorm, the position-free
    projections and a tied output projection listed *before* its embedding (head-first
    classes) are kept: it is not the same split as :func:`embedding_split`.
    """
    if not exclude_embeddings:
        return inv.total
    return inv.total - sum(t.count for t in inv.unique if t.embedding)


class MemoryRow(Record):
    """The weights' bytes in one dtype (a frozen record)."""

    __slots__ = ("dtype", "bytes_per_param", "bytes")
    dtype: str
    bytes_per_param: int
    bytes: int

    def __init__(self, dtype: str, bytes_per_param: int, bytes: int) -> None:  # noqa: A002 - the field's name
        self._set(dtype=dtype, bytes_per_param=bytes_per_param, bytes=bytes)


def memory(inv: Inventory) -> list[MemoryRow]:
    """Bytes to hold the weights once (no gradients, optimizer state or activations)."""
    return [MemoryRow(d, b, b * inv.total) for d, b in DTYPES]


def formula_label(inv: Inventory, key: str, lang: str = "en") -> str:
    """A formula line's name: the family's own word for it, else the shared label."""
    family = inv.family
    return family.label(key, lang) if family is not None else label(key, lang)


def formula(inv: Inventory) -> Formula | None:
    """The family's closed form (its ``formula`` declaration), or None for families without one."""
    family = inv.family
    if family is None or family.formula is None:
        return None
    f = family.formula(inv)
    missing = family.missing_words(line.key for line in f.lines)
    if missing:
        raise ValueError(f"{family.model_type}'s formula uses {missing} without words: add them to its labels=")
    return f


def formula_terms(line: FormulaLine, lang: str = "en") -> list[str]:
    """A formula line as its terms: symbolic, substituted, value; the substituted form is left
    out where it only repeats the value ("H = 768", not "H = 768 = 768")."""
    value = fmt_int(line.value, lang)
    if line.substituted in (str(line.value), value):
        return [line.symbolic, value]
    return [line.symbolic, line.substituted, value]


class ClassDifference(Record):
    """What a class adds to (and drops from) its family's base model built from the same values.

    ``added`` and ``removed`` are (module, parameters) per top-level module of the class
    (``discriminator_predictions``, ``cls``, ``classifier``) or of the base model (``pooler``),
    tied storage charged to its owner as in every breakdown; ``difference`` is
    ``sum(added) - sum(removed)``, the two totals' difference. A frozen record (:mod:`calculator.record`).
    """

    __slots__ = ("architecture", "base", "difference", "added", "removed")
    architecture: str
    base: str
    difference: int
    added: tuple[tuple[str, int], ...]
    removed: tuple[tuple[str, int], ...]

    def __init__(self, architecture: str, base: str, difference: int, added: tuple[tuple[str, int], ...],
                 removed: tuple[tuple[str, int], ...]) -> None:
        self._set(architecture=architecture, base=base, difference=difference, added=added, removed=removed)


def _modules(inv: Inventory) -> dict[str, int]:
    """Parameters per name below the class's own prefix (``electra.``), each storage once, under its owner."""
    prefix = inv.arch.prefix if inv.arch is not None else ""  # "electra." (with its dot), "" for the base model
    return {(t.name[len(prefix):] if prefix and t.name.startswith(prefix) else t.name): t.count for t in inv.charged}


def _by_module(names: dict[str, int], keep: set[str]) -> tuple[tuple[str, int], ...]:
    out: dict[str, int] = {}
    for name, count in names.items():
        if name in keep:
            module = name.split(".", 1)[0]
            out[module] = out.get(module, 0) + count
    return tuple((m, n) for m, n in out.items() if n)


def class_difference(inv: Inventory) -> ClassDifference | None:
    """How ``inv``'s class differs from the family's base model (None: it is the base model).

    A published config.json names the class it was saved as (``ElectraForPreTraining``), while a
    preset is counted as the base model (``ElectraModel``): the same checkpoint then shows two
    totals, and this says where the difference is.
    """
    base = base_model(inv)
    if base is None:
        return None
    mine, theirs = _modules(inv), _modules(base)
    added = _by_module(mine, set(mine) - set(theirs))
    removed = _by_module(theirs, set(theirs) - set(mine))
    # Names both have but with other sizes (none in any family today) would escape both lists:
    # the difference is the totals', whatever the lists say.
    return ClassDifference(inv.architecture, base.architecture, inv.total - base.total, added, removed)
