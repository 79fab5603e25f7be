"""Every text and Markdown rendering of a result, in one place: tensor tables, breakdown and formula
tables, the terminal report, the compact summary, the fine-tuning plan's lines and the tools' counts.

The CLI, the MkDocs hooks (``sitegen/context.py``) and the worker protocol (``calculator/api.py``)
call these and only choose what to show; HTML is :mod:`calculator.page`'s job. Markdown tables
are written here and nowhere else (``tests/properties/test_layering.py``), so a shared tensor's
note, a column's words and the punctuation of each language are the same wherever a table
appears.
"""
from __future__ import annotations

import re
from typing import Any, Iterable

from .. import counts
from ..i18n import colon, label, paren, punct
from ..model import Inventory, Tensor
from .breakdown import embedding_split, formula, formula_label, formula_terms, group_breakdown, num_parameters, per_layer
from .breakdown import class_difference, section_breakdown, section_of
from .notes import config_notes  # noqa: F401 - re-exported: the notes have a module of their own
from .numbers import display_width, fmt_int, fmt_percent, fmt_shape, fmt_short


# ----------------------------------------------------------------- shared parts


def listed_under(t: Any) -> str | None:
    """For a copy of shared storage: the name its count is listed under (the owner, the embedding).

    The same rule as :meth:`Inventory.listed_under`, read from the tensor alone, so a table
    of a few selected tensors names the same end of a tie as the whole model's table: the
    embedding owns the storage (it is what ``save_pretrained`` keeps and what breakdowns
    charge), even where a class registers its head first and ``tied_to`` names the head.
    """
    owner = getattr(t, "owner", None)  # a planned model's tensor (peft.PlanTensor) knows only tied_to
    charged = (t.tied_to is None) if owner is None else owner == t.name
    return None if charged else (owner or t.tied_to)


def tie_note(t: Any, lang: str, code: str = "") -> str:
    """"tied to `name`, counted once" for a copy of shared storage; what a persistent buffer is; else "".

    The owner of a tie whose first name is another (XLM-R's word table, first named
    ``lm_head.decoder.weight``) says so, since the prose says which name comes first.
    """
    if getattr(t, "buffer", False) or getattr(t, "kind", "") == "buffer":  # a model's, or a planned model's
        return label("buffer_note", lang)
    under = listed_under(t)
    if under:
        return label("tied_to", lang, name=code + under + code)
    if t.tied_to is not None:
        return label("first_named", lang, name=code + t.tied_to + code)
    return ""


#: What Markdown or HTML would act on in a line of text (CommonMark lets any ASCII punctuation be escaped).
_MD_SPECIAL = re.compile(r"([\\`*\[\]<>!|~&#])")
#: ``_`` emphasises only where it is not inside a word (CommonMark's flanking rule): ``num_hidden_layers`` stays.
_MD_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
#: A bare address GitHub-flavoured Markdown would turn into a link (its extended autolinks).
_MD_AUTOLINK = re.compile(r"(?i)\b(https?|ftp|mailto)(:)|\b(www)(\.)")


def md_text(text: Any) -> str:
    """Text a reader or a config supplied (a label, a ``_name_or_path``) as one line of Markdown that reads as typed.

    Whitespace is collapsed to single spaces (a line break would let the text start a heading, a list or a raw
    HTML block of its own), every character Markdown or HTML acts on is backslash-escaped (``<img>``,
    ``**``, ``|``, ``[…](…)``, ``&amp;``), and a bare address is broken so it is not made a link. The page's
    link label and the CLI's ``--format markdown`` both go through here (issue 35, reliability M5, L5).
    """
    line = _MD_UNDERSCORE.sub(r"\\_", _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split())))
    return _MD_AUTOLINK.sub(lambda m: (m.group(1) or m.group(3)) + "\\" + (m.group(2) or m.group(4)), line)


def md_code(text: Any) -> str:
    """``text`` as a Markdown code span that holds it whatever it contains (a backtick, ``|`` in a table)."""
    line = " ".join(str(text).split())
    runs = [len(r) for r in re.findall(r"`+", line)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if line.startswith("`") or line.endswith("`") else ""
    return f"{fence}{pad}{line}{pad}{fence}"


def _cell(text: str) -> str:
    """A table cell on one line, its ``|`` escaped (GFM splits cells on any other, code spans included)."""
    return re.sub(r"(?<!\\)\|", r"\\|", " ".join(text.split()))


def _table(head: Iterable[str], align: Iterable[str], rows: Iterable[Iterable[str]]) -> str:
    """A GitHub-flavoured Markdown table; ``align`` holds "l" or "r" per column."""
    def line(cells: Iterable[str]) -> str:
        return "|" + "|".join(f" {_cell(c)} " if c else " " for c in cells) + "|"

    lines = [line(head), "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|"]
    lines.extend(line(cells) for cells in rows)
    return "\n".join(lines) + "\n"


def _strong(text: str) -> str:
    return f"**{text}**"


def _tensors_total(tensors: Iterable[Tensor]) -> int:
    """Ties once (each storage under its first name)."""
    return sum(t.count for t in tensors if t.tied_to is None)


def _total_with_short(n: int, lang: str, bold: bool = False) -> str:
    """109,482,240 (109.5M) / 109,482,240（约 1.095 亿）."""
    exact = fmt_int(n, lang)
    return (_strong(exact) if bold else exact) + paren(label("about", lang, short=fmt_short(n, lang)), lang, aside=True)


def _model_line(inv: Inventory, lang: str) -> str:
    """BertModel (bert) / BertModel（bert）."""
    return inv.architecture + paren(inv.model_type, lang, aside=True)


# --------------------------------------------------------------- tensor tables


def _signature(tensors: list[Tensor], layer: int) -> list[tuple[str, tuple[int, ...]]]:
    """A layer's tensors with the index taken out of their names, and their shapes."""
    marker = f".{layer}."
    return [(t.name.replace(marker, ".{i}.", 1), t.shape) for t in tensors]


def _layer_template(inv: Inventory) -> list[Tensor] | None:
    """The first layer's tensors when every layer has the same names (index swapped) and shapes.

    A stack whose layers differ (ModernBERT's layer 0 has no attention norm) is listed
    in full rather than multiplied, so the compact table never claims a shape a layer lacks.
    """
    layers = per_layer(inv)
    if len(layers) < 2:
        return None
    by_layer: dict[int, list[Tensor]] = {}
    for t in inv.tensors:
        if t.layer is not None:
            by_layer.setdefault(t.layer, []).append(t)
    first = _signature(by_layer[layers[0].layer], layers[0].layer)
    if any(_signature(by_layer[row.layer], row.layer) != first for row in layers[1:]):
        return None
    return by_layer[layers[0].layer]


def _count_cell(t: Any, lang: str, frozen: str | None = None) -> str:
    """A tensor's count; a copy of shared storage says which name it is counted under."""
    count = fmt_int(t.count, lang)
    note = tie_note(t, lang, code="`")
    if note and listed_under(t) is None and t.tied_to is not None and not getattr(t, "buffer", False):
        return count + paren(note, lang, aside=True)  # the tie's owner, first named elsewhere: counted here
    if note:
        return paren(count + colon(lang) + note, lang)
    if frozen and not t.trainable:
        return count + paren(frozen, lang, aside=True)
    return count


def markdown_table(inv: Inventory, lang: str = "en", compact: bool = True) -> str:
    """The per-tensor table (a GitHub issue's or StackExchange answer's "where are the parameters").

    ``compact`` lists layer 0 once and multiplies (the way hand-made tables
    do); otherwise every ``state_dict`` entry gets a row.
    """
    name = label("weight" if inv.keras_layers else "tensor", lang)
    rows: list[list[str]] = []
    template = _layer_template(inv) if compact else None
    n_layers = len(per_layer(inv))
    em = punct("emphasis", lang)

    def row(t: Tensor) -> list[str]:
        return [md_code(t.name), fmt_shape(t.shape), _count_cell(t, lang)]

    for s in section_breakdown(inv):
        rows.append([_strong(label(s.key, lang)), "", _strong(fmt_int(s.count, lang))])
        members = [t for t in inv.tensors if section_of(t) == s.key]
        if s.key == "encoder" and template is not None and not any(t.stack != "encoder" for t in inv.tensors):
            rows.extend(row(t) for t in template)
            per = sum(t.count for t in template if listed_under(t) is None)
            times = label("times_layers", lang, per=fmt_int(per, lang), n=n_layers, total=fmt_int(per * n_layers, lang))
            rows.append([f"{em}{label('per_layer', lang)}{em}", "", f"{em}{times}{em}"])
            # Encoder tensors outside the layers (MPNet's relative bias, DeBERTa's rel_embeddings, a final norm).
            rows.extend(row(t) for t in members if t.layer is None)
        else:
            rows.extend(row(t) for t in members)
    rows.append([_strong(label("total", lang)), "", _strong(fmt_int(inv.total, lang))])
    if inv.trainable != inv.total:
        rows.append([label("trainable", lang), "", fmt_int(inv.trainable, lang)])
    if inv.state_dict_total != inv.total:
        rows.append([label("state_dict_total", lang), "", fmt_int(inv.state_dict_total, lang)])
    return _table([name, label("shape", lang), label("count", lang)], "llr", rows)


def tensor_table(tensors: Iterable[Any], lang: str = "en", total_label: str | None = None,
                 frozen: str | None = None) -> str:
    """Tensor | shape | parameters for some tensors of a model (or of a planned model), and their sum (ties once).

    ``frozen``: a note added to the count of each non-trainable tensor.
    """
    tensors = list(tensors)
    rows = [[md_code(t.name), fmt_shape(t.shape), _count_cell(t, lang, frozen)] for t in tensors]
    rows.append([_strong(total_label or label("subtotal", lang)), "", _strong(fmt_int(_tensors_total(tensors), lang))])
    return _table([label("tensor", lang), label("shape", lang), label("count", lang)], "llr", rows)


def breakdown_table(inv: Inventory, lang: str = "en") -> str:
    """Component | parameters | share, one row per group, and the total."""
    rows = [[label(s.key, lang), fmt_int(s.count, lang), fmt_percent(s.fraction, lang)] for s in group_breakdown(inv)]
    rows.append([_strong(label("total", lang)), _strong(fmt_int(inv.total, lang)), _strong(fmt_percent(1.0, lang))])
    return _table([label("group", lang), label("count", lang), label("share", lang)], "lrr", rows)


def formula_table(inv: Inventory, lang: str = "en") -> str:
    """The closed form, symbolic and substituted, one row per line of the family's formula."""
    f = formula(inv)
    if f is None:
        raise ValueError(f"no closed form for {inv.model_type}")
    rows = [[formula_label(inv, line.key, lang), line.symbolic, line.substituted, fmt_int(line.value, lang)]
            for line in f.lines]
    rows.append([_strong(label("total", lang)), "", "", _strong(fmt_int(f.total, lang))])
    return _table([label("group", lang), label("formula", lang), "=", label("count", lang)], "lllr", rows)


# -------------------------------------------------------------------- summaries


def split_rows(inv: Inventory) -> list[tuple[str, int]]:
    """The two "backbone" splits, as (label key, count): the whole embedding layer and what follows it,
    then transformers' ``num_parameters()`` both ways (transformers families only)."""
    emb, rest = embedding_split(inv)
    rows = [("embedding_params", emb), ("non_embedding_params", rest)]
    if inv.family is not None and inv.family.transformers:
        rows.append(("num_parameters_all", num_parameters(inv)))
        rows.append(("num_parameters_exclude_embeddings", num_parameters(inv, exclude_embeddings=True)))
    return rows


def class_difference_line(inv: Inventory, lang: str = "en", markdown: bool = False) -> str | None:
    """One sentence: the class, its difference to the family's base model, and what makes it; None for the base.

    "ElectraForPreTraining has 591,361 more parameters than the base model, ElectraModel (adds
    discriminator_predictions: 591,361)": a pasted config names the class it was saved as, a
    preset counts the base model, and this is where the two totals part. The modules are the
    inventory's own names (``cls``, ``classifier``, ``pooler``), never a description typed by hand.
    """
    d = class_difference(inv)
    if d is None:
        return None
    name = (lambda s: f"`{s}`") if markdown else str  # noqa: E731
    line = label(
        "class_difference", lang, architecture=name(d.architecture), base=name(d.base),
        amount=fmt_int(abs(d.difference), lang),
        more_or_less=label("class_less" if d.difference < 0 else "class_more", lang),
    )
    parts = [label("class_adds", lang, module=name(m), count=fmt_int(n, lang)) for m, n in d.added]
    parts += [label("class_drops", lang, module=name(m), count=fmt_int(n, lang)) for m, n in d.removed]
    if parts:
        line += paren(punct("clause_sep", lang).join(parts), lang, aside=True)
    return line


def summary_markdown(inv: Inventory, lang: str = "en", name: str | None = None, plan: Any = None,
                     link: str | None = None) -> str:
    """The answer a forum post pastes: what was counted, the total, the two "backbone" splits,
    ``num_parameters()`` both ways, peft's line when a plan is set, and the link when given.

    ``name``: the preset or label the reader chose (never guessed from the tensors).
    """
    title = f"`{inv.architecture}`" + paren(inv.model_type, lang, aside=True)
    if name:
        title = f"{_strong(md_text(name))} · {title}"
    rows = [[label("total", lang), _total_with_short(inv.total, lang, bold=True)]]
    if inv.trainable != inv.total:
        rows.append([label("trainable", lang), fmt_int(inv.trainable, lang)])
    rows.extend([label(key, lang), fmt_int(n, lang)] for key, n in split_rows(inv))
    out = title + "\n\n"
    difference = class_difference_line(inv, lang, markdown=True)
    if difference is not None:
        out += difference + "\n\n"
    out += _table(["", label("count", lang)], "lr", rows)
    if plan is not None:
        out += "\n" + plan_report(plan, lang, markdown=True)
    if link:
        out += "\n" + f"<{link}>\n"
    return out


def text_report(inv: Inventory, lang: str = "en", compact: bool = True, tensors: bool = True) -> str:
    """A plain-text report for terminals and forum posts without Markdown.

    ``compact`` lists layer 0's tensors once and multiplies, as the Markdown table does;
    ``tensors=False`` stops before the per-tensor listing (the summary the pages quote).
    """
    c = colon(lang)
    lines = [f"{label('model', lang)}{c}{_model_line(inv, lang)}"]
    difference = class_difference_line(inv, lang)  # as the Markdown summary and the page say it
    if difference is not None:
        lines.append(difference)
    lines.append(f"{label('total', lang)}{c}{_total_with_short(inv.total, lang)}")
    if inv.trainable != inv.total:
        lines.append(f"{label('trainable', lang)}{c}{fmt_int(inv.trainable, lang)}")
    if inv.state_dict_total != inv.total:
        lines.append(f"{label('state_dict_total', lang)}{c}{fmt_int(inv.state_dict_total, lang)}")
    emb, rest = embedding_split(inv)
    for key, n in (("embedding_params", emb), ("non_embedding_params", rest),
                   ("num_parameters_exclude_embeddings", num_parameters(inv, exclude_embeddings=True))):
        lines.append(f"{label(key, lang)}{c}{fmt_int(n, lang)}")
    lines.append("")
    sections = section_breakdown(inv)
    # A section with one component ("Pooler / Pooler") shows no child row, as on the page.
    children = {s.key: (s.children if len(s.children) > 1 else ()) for s in sections}
    names = [label(s.key, lang) for s in sections] + ["  " + label(g.key, lang) for s in sections for g in children[s.key]]
    width = max((display_width(x) for x in names), default=8) + 2
    for s in sections:
        rows = [(label(s.key, lang), s)] + [("  " + label(g.key, lang), g) for g in children[s.key]]
        for name, item in rows:
            pad = " " * (width - display_width(name))
            lines.append(f"{name}{pad}{fmt_int(item.count, lang):>15}  {fmt_percent(item.fraction, lang):>7}")
    f = formula(inv)
    if f is not None:
        lines.append("")
        lines.append(f"{label('formula', lang)}{c.strip()}")
        for line in f.lines:
            lines.append(f"  {formula_label(inv, line.key, lang)}{c}{' = '.join(formula_terms(line, lang))}")
    if not tensors:
        return "\n".join(lines).rstrip() + "\n"
    lines.append("")
    template = _layer_template(inv) if compact and all(t.stack == "encoder" for t in inv.tensors) else None
    shown = [t for t in inv.tensors if template is None or t.layer is None or t.layer == 0]
    name_w = max((len(t.name) for t in shown), default=10) + 2
    layers = per_layer(inv)
    for t in shown:
        note = tie_note(t, lang)
        note = "  " + paren(note, lang) if note else ""
        lines.append(f"{t.name:<{name_w}}{fmt_shape(t.shape):<16}{fmt_int(t.count, lang):>14}{note}")
        if template is not None and t is template[-1]:
            per = layers[0].count
            total = sum(r.count for r in layers)
            times = label("times_layers", lang, per=fmt_int(per, lang), n=len(layers), total=fmt_int(total, lang))
            lines.append(f"{'':<{name_w}}{'':<16}{times}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------- plan and counts


def plan_lines(plan: Any, lang: str) -> list[str]:
    """peft's own line (LoRA) or the trainable share (freezing), then the warnings: what the page lists."""
    lines = [plan.line if plan.line is not None else _trainable_of(plan, lang)]
    lines.extend(label("warning_line", lang, message=w.message(lang)) for w in plan.warnings)
    return lines


def _trainable_of(plan: Any, lang: str) -> str:
    return label("trainable_of", lang, trainable=fmt_int(plan.trainable, lang), all=fmt_int(plan.all, lang),
                 percent=f"{plan.percentage:.4f}")


def plan_report(plan: Any, lang: str = "en", markdown: bool = False, full: bool = False) -> str:
    """What text and Markdown end with for a LoRA or freezing plan (a :class:`calculator.peft.Plan`).

    LoRA: its settings, peft's ``print_trainable_parameters()`` line character for
    character, what it adds and copies (``full``: every added tensor); freezing: the
    trainable share. Then the warnings (Markdown: as quotes).
    """
    code = "`" if markdown else ""
    lines: list[str] = []
    if plan.line is not None:
        settings = ", ".join(f"{k}={v if not isinstance(v, list) else ','.join(v)}" for k, v in plan.settings.items()
                             if v is not None)
        lines.append(label("lora", lang) + paren(settings, lang, aside=True) + colon(lang).rstrip())
        lines.append(f"{code}{plan.line}{code}")
        added = plan.added
        if added:
            lines.append(label("lora_added", lang, n=len(added), count=fmt_int(sum(t.count for t in added), lang)))
        copies = [t for t in plan.copies if t.tied_to is None]
        if copies:
            lines.append(label("lora_copies", lang, count=fmt_int(sum(t.count for t in copies), lang)))
        if full:
            width = max((len(t.name) for t in added), default=10) + 2
            lines.extend(f"  {code}{t.name}{code}{' ' * (width - len(t.name))}{fmt_shape(t.shape)}" for t in added)
    else:
        lines.append(_trainable_of(plan, lang))
    prefix = "> " if markdown else ""
    lines.extend(prefix + label("warning_line", lang, message=w.message(lang)) for w in plan.warnings)
    return ("\n\n" if markdown else "\n").join(lines) + "\n"


def counts_report(inv: Inventory, lang: str = "en", markdown: bool = False) -> str:
    """Every tool's count (:func:`calculator.counts.reconcile`), one per line; Markdown: a table."""
    rows = counts.reconcile(inv)
    if markdown:
        return _table([label("counts_tool", lang), label("count", lang)], "lr",
                      [[c.label(lang), fmt_int(c.value, lang)] for c in rows])
    width = max(display_width(c.label(lang)) for c in rows) + 2
    return "".join(
        f"{c.label(lang)}{' ' * (width - display_width(c.label(lang)))}{fmt_int(c.value, lang):>16}\n" for c in rows
    )
