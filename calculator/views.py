"""Views of an :class:`~calculator.model.Inventory`: breakdowns, formulas, tables, reports.

Each view reads the tensor list and nothing else, so every page, the CLI and
the in-page calculator show the same numbers.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from .formula import Formula
from .i18n import label
from .model import GROUPS, SECTIONS, Inventory, Tensor

def escape(text: str) -> str:
    """Escape text for HTML or SVG, as ``html.escape(text, quote=True)`` does.

    Our own five replacements because importing :mod:`html` (and its entity
    table) costs about 30 ms in Pyodide, on the path to the page's first answer.
    """
    return (
        text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        .replace('"', "&quot;").replace("'", "&#x27;")
    )


#: Bytes per parameter for the weight-memory view.
DTYPES: tuple[tuple[str, int], ...] = (("fp32", 4), ("fp16", 2), ("bf16", 2), ("int8", 1))


# --------------------------------------------------------------------- numbers


def fmt_int(n: int, lang: str = "en") -> str:
    """Digit-grouped integer; Chinese technical writing uses the same thousands separators."""
    return f"{n:,}"


#: Short-form units, smallest first: (size, suffix). Chinese counts in 万 (10^4), 亿 (10^8) and
#: 万亿 (10^12); English in thousands.
SHORT_UNITS: dict[str, tuple[tuple[int, str], ...]] = {
    "zh": ((10**4, " 万"), (10**8, " 亿"), (10**12, " 万亿")),
    "en": ((10**3, "K"), (10**6, "M"), (10**9, "B"), (10**12, "T")),
}


def _rounded(a: int, size: int, decimals: int) -> int:
    """``a / size`` rounded half-up to ``decimals`` places, as an integer count of the last place."""
    scale = 10**decimals
    return (2 * a * scale + size) // (2 * size)


def fmt_short(n: int, lang: str = "en") -> str:
    """A short form people say out loud: 109.5M in English, 1.095 亿 in Chinese.

    Chinese keeps four significant figures (1.089 亿, 1.095 亿 and 1.101 亿 stay three
    different numbers; three figures printed all of them as 1.1 亿, BERT-base's famous
    size); English keeps one decimal (109.5M). The unit is the largest whose mantissa,
    *after rounding*, stays below the next unit (9,999.5 万 is 1 亿, 999.95M is 1.0B),
    and integer arithmetic means no exponent is ever printed, up to the calculator's 10^15.
    Trailing zeros of the Chinese mantissa are dropped (1 亿, 1.1 亿), as people write it.
    """
    lang = "zh" if lang == "zh" else "en"
    units = SHORT_UNITS[lang]
    sign, a = ("-" if n < 0 else ""), abs(int(n))
    if a < units[0][0]:
        return str(n)
    step = units[1][0] // units[0][0]  # each unit is this many of the one below (10^4 or 10^3)
    for index, (size, suffix) in enumerate(units):
        last = index == len(units) - 1
        if lang == "zh":
            digits = len(str(a // size)) if a >= size else 1
            decimals = max(4 - digits, 0)
            q = _rounded(a, size, decimals)
            if len(str(q // 10**decimals)) > digits and decimals > 0:  # 9.9995 → 10.00: one place fewer
                decimals -= 1
                q = _rounded(a, size, decimals)
        else:
            decimals = 1
            q = _rounded(a, size, decimals)
        whole, frac = divmod(q, 10**decimals)
        if whole >= step and not last:
            continue  # rounds up to the next unit
        text = str(whole)
        if decimals:
            fraction = str(frac).zfill(decimals)
            if lang == "zh":
                fraction = fraction.rstrip("0")
            text += "." + fraction if fraction else ""
        return sign + text + suffix
    raise AssertionError("unreachable: the last unit always returns")


def fmt_percent(fraction: float, lang: str = "en") -> str:
    """One decimal, or two below 1 % so small components do not all read 0.0 %."""
    pct = fraction * 100
    return f"{pct:.2f}%" if 0 < pct < 1 else f"{pct:.1f}%"


def fmt_shape(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


def fmt_bytes(n: int, lang: str = "en") -> str:
    """Decimal units, as model hubs and file browsers show checkpoint sizes."""
    for size, suffix in ((10**9, "GB"), (10**6, "MB"), (10**3, "kB")):
        if n >= size:
            return f"{n / size:.1f} {suffix}"
    return f"{n} B"


# ------------------------------------------------------------------ breakdowns


@dataclass(frozen=True)
class Share:
    key: str
    count: int
    fraction: float


@dataclass(frozen=True)
class Section:
    key: str
    count: int
    fraction: float
    children: tuple[Share, ...] = field(default=())


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
    out: list[Section] = []
    for s in SECTIONS:
        members = [t for t in inv.charged if section_of(t) == s]
        if not members:
            continue
        count = sum(t.count for t in members)
        children = []
        for g in GROUPS:
            n = sum(t.count for t in members if t.group == g)
            if n:
                children.append(Share(g, n, _fraction(n, total)))
        out.append(Section(s, count, _fraction(count, total), tuple(children)))
    return out


@dataclass(frozen=True)
class LayerRow:
    layer: int
    count: int


def per_layer(inv: Inventory) -> list[LayerRow]:
    """Unique parameters of each encoder block (ALBERT: of each shared layer group)."""
    sums: dict[int, int] = {}
    for t in inv.charged:
        if t.layer is not None:
            sums[t.layer] = sums.get(t.layer, 0) + t.count
    return [LayerRow(i, sums[i]) for i in sorted(sums)]


def embedding_split(inv: Inventory) -> tuple[int, int]:
    """(embedding parameters, everything else): the embeddings *section*, the split model cards quote.

    A tied output projection is charged to the embedding it shares (nanoGPT's
    definition); where a class registers its head first, the shared table still
    counts here (:attr:`Inventory.charged`).
    """
    emb = sum(t.count for t in inv.charged if t.section == "embeddings")
    return emb, inv.total - emb


def num_parameters(inv: Inventory, exclude_embeddings: bool = False) -> int:
    """transformers' ``model.num_parameters(exclude_embeddings=...)``, by its definition.

    It sums ``named_parameters()`` (each shared Parameter once, under its first
    name) and, with ``exclude_embeddings``, skips the names ``<module>.weight`` of
    every ``nn.Embedding`` module. So the embedding LayerNorm, the position-free
    projections and a tied output projection listed *before* its embedding (head-first
    classes) are kept: it is not the embeddings/non-embedding split of model cards.
    """
    if not exclude_embeddings:
        return inv.total
    return inv.total - sum(t.count for t in inv.unique if t.embedding)


@dataclass(frozen=True)
class MemoryRow:
    dtype: str
    bytes_per_param: int
    bytes: int


def memory(inv: Inventory) -> list[MemoryRow]:
    """Bytes to hold the weights once (no gradients, optimizer state or activations)."""
    return [MemoryRow(d, b, b * inv.total) for d, b in DTYPES]


# --------------------------------------------------------------------- formula


def formula_label(inv: Inventory, key: str, lang: str = "en") -> str:
    """A formula line's name: the family's own word for it, else the shared label."""
    from .families import FAMILIES

    family = FAMILIES.get(inv.model_type)
    return family.label(key, lang) if family is not None else label(key, lang)


def formula(inv: Inventory) -> Formula | None:
    """The family's closed form (its ``formula`` declaration), or None for families without one."""
    from .families import FAMILIES

    family = FAMILIES.get(inv.model_type)
    if family is None or family.formula is None:
        return None
    return family.formula(inv)


# ----------------------------------------------------------------- table views



def _signature(inv: Inventory, layer: int) -> list[tuple[str, tuple[int, ...]]]:
    """A layer's tensors with the index taken out of their names, and their shapes."""
    marker = f".{layer}."
    return [(t.name.replace(marker, ".{i}.", 1), t.shape) for t in inv.tensors if t.layer == layer]


def _layer_template(inv: Inventory) -> list[Tensor] | None:
    """The first layer's tensors when every layer has the same names (index swapped) and shapes.

    A stack whose layers differ (ModernBERT's layer 0 has no attention norm) is listed
    in full rather than multiplied, so the compact table never claims a shape a layer lacks.
    """
    layers = per_layer(inv)
    if len(layers) < 2:
        return None
    first = _signature(inv, layers[0].layer)
    if any(_signature(inv, row.layer) != first for row in layers[1:]):
        return None
    return [t for t in inv.tensors if t.layer == layers[0].layer]


def markdown_table(inv: Inventory, lang: str = "en", compact: bool = True) -> str:
    """The table people paste into GitHub issues and StackExchange answers.

    ``compact`` lists layer 0 once and multiplies (the way hand-made tables
    do); otherwise every ``state_dict`` entry gets a row.
    """
    name = label("weight" if inv.keras_layers else "tensor", lang)
    head = f"| {name} | {label('shape', lang)} | {label('count', lang)} |\n|---|---|---:|\n"
    rows: list[str] = []
    template = _layer_template(inv) if compact else None
    n_layers = len(per_layer(inv))

    def row(t: Tensor) -> str:
        count = fmt_int(t.count, lang)
        under = inv.listed_under(t)
        if under or t.buffer:
            note = label("buffer_note", lang) if t.buffer else label("tied_to", lang, name="`" + under + "`")
            count = f"（{count}：{note}）" if lang == "zh" else f"({count}: {note})"
        return f"| `{t.name}` | {fmt_shape(t.shape)} | {count} |"

    for s in section_breakdown(inv):
        rows.append(f"| **{label(s.key, lang)}** | | **{fmt_int(s.count, lang)}** |")
        members = [t for t in inv.tensors if section_of(t) == s.key]
        if s.key == "encoder" and template is not None and not any(t.stack != "encoder" for t in inv.tensors):
            for t in template:
                rows.append(row(t))
            per = sum(t.count for t in template if inv.listed_under(t) is None)
            em = "**" if lang == "zh" else "*"  # no synthetic italics on Chinese text
            times = label("times_layers", lang, per=fmt_int(per, lang), n=n_layers, total=fmt_int(per * n_layers, lang))
            rows.append(f"| {em}{label('per_layer', lang)}{em} | | {em}{times}{em} |")
            # Encoder tensors outside the layers (MPNet's relative bias, DeBERTa's rel_embeddings, a final norm).
            rows.extend(row(t) for t in members if t.layer is None)
        else:
            rows.extend(row(t) for t in members)
    rows.append(f"| **{label('total', lang)}** | | **{fmt_int(inv.total, lang)}** |")
    if inv.trainable != inv.total:
        rows.append(f"| {label('trainable', lang)} | | {fmt_int(inv.trainable, lang)} |")
    if inv.state_dict_total != inv.total:
        rows.append(f"| {label('state_dict_total', lang)} | | {fmt_int(inv.state_dict_total, lang)} |")
    return head + "\n".join(rows) + "\n"


def text_report(inv: Inventory, lang: str = "en", compact: bool = True) -> str:
    """A plain-text report for terminals and forum posts without Markdown.

    ``compact`` lists layer 0's tensors once and multiplies, as the Markdown table does.
    """
    colon = "：" if lang == "zh" else ": "
    if lang == "zh":  # full-width brackets after a full-width colon: 总参数量：109,482,240（约 1.095 亿）
        model = f"{inv.architecture}（{inv.model_type}）"
        total = f"{fmt_int(inv.total, lang)}（约 {fmt_short(inv.total, lang)}）"
    else:
        model = f"{inv.architecture} ({inv.model_type})"
        total = f"{fmt_int(inv.total, lang)} ({fmt_short(inv.total, lang)})"
    lines = [f"{label('model', lang)}{colon}{model}", f"{label('total', lang)}{colon}{total}"]
    if inv.trainable != inv.total:
        lines.append(f"{label('trainable', lang)}{colon}{fmt_int(inv.trainable, lang)}")
    if inv.state_dict_total != inv.total:
        lines.append(f"{label('state_dict_total', lang)}{colon}{fmt_int(inv.state_dict_total, lang)}")
    emb, rest = embedding_split(inv)
    lines.append(f"{label('embedding_params', lang)}{colon}{fmt_int(emb, lang)}")
    lines.append(f"{label('non_embedding_params', lang)}{colon}{fmt_int(rest, lang)}")
    lines.append(f"{label('num_parameters_exclude_embeddings', lang)}{colon}"
                 f"{fmt_int(num_parameters(inv, exclude_embeddings=True), lang)}")
    lines.append("")
    sections = section_breakdown(inv)
    # A section with one component ("Pooler / Pooler") shows no child row, as on the page.
    children = {s.key: (s.children if len(s.children) > 1 else ()) for s in sections}
    names = [label(s.key, lang) for s in sections] + ["  " + label(g.key, lang) for s in sections for g in children[s.key]]
    width = max((_display_width(x) for x in names), default=8) + 2
    for s in sections:
        rows = [(label(s.key, lang), s)] + [("  " + label(g.key, lang), g) for g in children[s.key]]
        for name, item in rows:
            pad = " " * (width - _display_width(name))
            lines.append(f"{name}{pad}{fmt_int(item.count, lang):>15}  {fmt_percent(item.fraction, lang):>7}")
    f = formula(inv)
    if f is not None:
        lines.append("")
        lines.append(f"{label('formula', lang)}{colon.strip()}")
        for line in f.lines:
            lines.append(
                f"  {formula_label(inv, line.key, lang)}{colon}{line.symbolic} = {line.substituted} = {fmt_int(line.value, lang)}"
            )
    lines.append("")
    template = _layer_template(inv) if compact and all(t.stack == "encoder" for t in inv.tensors) else None
    shown = [t for t in inv.tensors if template is None or t.layer is None or t.layer == 0]
    name_w = max((len(t.name) for t in shown), default=10) + 2
    layers = per_layer(inv)
    for t in shown:
        under = inv.listed_under(t)
        note = f"  ({label('tied_to', lang, name=under)})" if under else ""
        if t.buffer:
            note = f"  ({label('buffer_note', lang)})"
        lines.append(f"{t.name:<{name_w}}{fmt_shape(t.shape):<16}{fmt_int(t.count, lang):>14}{note}")
        if template is not None and t is template[-1]:
            per = layers[0].count
            total = sum(r.count for r in layers)
            times = label("times_layers", lang, per=fmt_int(per, lang), n=len(layers), total=fmt_int(total, lang))
            lines.append(f"{'':<{name_w}}{'':<16}{times}")
    return "\n".join(lines) + "\n"


def _display_width(text: str) -> int:
    """Terminal columns: CJK characters take two."""
    return sum(2 if "\u2e80" <= ch <= "\uffef" else 1 for ch in text)


def to_json(inv: Inventory, peft: Any = None) -> dict[str, Any]:
    """The CLI's ``--format json`` object (schema in the README); everything an integer, nothing rounded.

    ``peft``: a :class:`calculator.peft.Plan` adds ``"peft": {"trainable", "all", "line", ...}``.
    """
    emb, non_emb = embedding_split(inv)
    f = formula(inv)
    out: dict[str, Any] = {
        "model_type": inv.model_type,
        "architecture": inv.architecture,
        "pooler": inv.pooler,
        "config": dict(inv.config),
        "total": inv.total,
        "trainable": inv.trainable,
        "non_trainable": inv.non_trainable,
        "state_dict_total": inv.state_dict_total,
        "embedding": emb,
        "non_embedding": non_emb,
        # transformers' model.num_parameters() and num_parameters(exclude_embeddings=True), by its definition
        "num_parameters": {"all": num_parameters(inv), "exclude_embeddings": num_parameters(inv, exclude_embeddings=True)},
        "groups": [asdict(s) for s in group_breakdown(inv)],
        "sections": [
            {"key": s.key, "count": s.count, "fraction": s.fraction, "children": [asdict(c) for c in s.children]}
            for s in section_breakdown(inv)
        ],
        "per_layer": [asdict(r) for r in per_layer(inv)],
        "memory": [asdict(m) for m in memory(inv)],
        "formula": None
        if f is None
        else {"symbols": f.symbols, "lines": [asdict(line) for line in f.lines], "total": f.total},
        "tensors": [
            {
                "name": t.name,
                "shape": list(t.shape),
                "count": t.count,
                "group": t.group,
                "layer": t.layer,
                "tied_to": t.tied_to,
                "trainable": t.trainable,
                "section": t.section,
                "module": t.module,
            }
            for t in inv.tensors
        ],
    }
    if inv.keras_layers:
        out["layers"] = [
            {"name": k.name, "class": k.cls, "count": k.count, "trainable": k.trainable} for k in inv.keras_layers
        ]
    if peft is not None:
        out["peft"] = peft.to_dict()
    return out
