"""The names a page can use in ``{{ ... }}``: views of ``calculator/``, formatted for one language.

``page_context(lang)`` returns a dict for Jinja2. Everything numeric is computed
here from the calculator at build time; the pages only choose what to show.
The list of names is documented in ``sitegen/macros.py``.
"""
from __future__ import annotations

import ast
import functools
import json
from pathlib import Path
from typing import Any, Iterable

from calculator import charts, counts, hub, peft, views
from calculator.views import hub as hub_views
from calculator.build import build
from calculator.families import keras_bert, transformer2018
from calculator.i18n import label as _label
from calculator.model import Inventory, Tensor
from calculator.presets import PRESETS
from sitegen import costs_pages, fits_pages

#: Figures quoted from elsewhere (not computed by us): the BERT paper's rounded
#: totals. The build checks that our exact totals round to them.
PAPER_TOTALS: dict[str, tuple[str, int]] = {
    "base": ("bert-base-uncased", 110_000_000),
    "large": ("bert-large-uncased", 340_000_000),
}
#: The paper's figures are rounded to the nearest ten million.
PAPER_ROUNDING = 10_000_000

#: The one-layer Transformer whose printout (10,152,448) is pasted in the BERT
#: repository's issue about the parameter count: attention-is-all-you-need-pytorch
#: with these constructor arguments.
TRANSFORMER_PRINTOUT: dict[str, Any] = {
    "model_type": transformer2018.MODEL_TYPE,
    "n_src_vocab": 5395,
    "n_tgt_vocab": 5395,
    "len_max_seq": 32,
    "d_word_vec": 512,
    "d_model": 512,
    "d_inner": 2048,
    "n_layers": 1,
    "n_head": 8,
    "d_k": 64,
    "d_v": 64,
    "tgt_emb_prj_weight_sharing": True,
    "emb_src_tgt_weight_sharing": True,
}

#: UltraFastBERT (Belcak & Wattenhofer, 2023): 12 of 4,095 feed-forward neurons per layer per token.
ULTRAFASTBERT: dict[str, int] = {"active": 12, "neurons": 4095}

SNIPPETS = Path(__file__).resolve().parent.parent / "docs_src"


def _freeze(value: Any) -> Any:
    return json.dumps(value, sort_keys=True)


@functools.lru_cache(maxsize=None)
def _build_cached(raw_json: str, architecture: str | None, pooler: Any) -> Inventory:
    return build(json.loads(raw_json), architecture=architecture, pooler=pooler)


def model(preset: str = "bert-base-uncased", architecture: str | None = None, pooler: Any = None,
          **overrides: Any) -> Inventory:
    """A preset's inventory (base model unless ``architecture``), with config keys overridden."""
    raw = dict(PRESETS[preset].config)
    raw.update(overrides)
    return _build_cached(_freeze(raw), architecture, pooler)


def custom(raw: dict[str, Any], architecture: str | None = None, pooler: Any = None) -> Inventory:
    """An inventory from a raw config dict (any ``model_type`` the calculator knows)."""
    return _build_cached(_freeze(dict(raw)), architecture, pooler)


def snippet_kwargs(name: str, function: str) -> dict[str, Any]:
    """The literal keyword arguments of the one call to ``function`` in ``docs_src/<name>``.

    The keras-bert page computes from the arguments of the snippet it shows,
    so the two cannot drift apart.
    """
    tree = ast.parse((SNIPPETS / name).read_text(encoding="utf-8"))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == function]
    if len(calls) != 1:
        raise ValueError(f"{name}: expected one call to {function}, found {len(calls)}")
    return {k.arg: ast.literal_eval(k.value) for k in calls[0].keywords if k.arg is not None}


def keras_model(**overrides: Any) -> Inventory:
    """keras-bert's get_model() with the arguments of ``docs_src/keras_count.py`` (and overrides)."""
    raw = dict(snippet_kwargs("keras_count.py", "get_model"), model_type=keras_bert.MODEL_TYPE)
    raw.update(overrides)
    return custom(raw)


def transformer(**overrides: Any) -> Inventory:
    """The 2018 Transformer of the printout, with constructor arguments overridden."""
    raw = dict(TRANSFORMER_PRINTOUT)
    raw.update(overrides)
    return custom(raw)


def active_parameters(inv: Inventory, fraction: Any) -> Any:
    from calculator import active

    return active.active_parameters(inv, fraction)


def mistake(mistake_id: str, inv: Inventory) -> Any:
    from calculator import mistakes

    return mistakes.mistake(mistake_id, inv)


def all_mistakes(inv: Inventory) -> Any:
    from calculator import mistakes

    return mistakes.all_mistakes(inv)


def round_to(value: int, step: int) -> int:
    """Round half up to a multiple of ``step`` (the way papers round totals)."""
    return (value + step // 2) // step * step


def check_paper_figures() -> None:
    for key, (preset, quoted) in PAPER_TOTALS.items():
        ours = model(preset).total
        if round_to(ours, PAPER_ROUNDING) != quoted:
            raise AssertionError(f"paper figure {key}: {ours} does not round to {quoted}")


def check(condition: Any, message: str = "a claim in the prose no longer holds") -> str:
    """``{% set _ = check(a == b, "why") %}``: fail the build when a sentence stops being true; renders nothing."""
    if not condition:
        raise AssertionError(message)
    return ""


def tensor(inv: Inventory, name: str) -> Tensor:
    """The tensor called ``name`` (exact ``state_dict`` name, or a unique suffix of one)."""
    exact = [t for t in inv.tensors if t.name == name]
    if exact:
        return exact[0]
    found = [t for t in inv.tensors if t.name.endswith("." + name) or t.name.endswith(name)]
    if len(found) != 1:
        raise KeyError(f"{name!r} matches {len(found)} tensors of {inv.architecture}")
    return found[0]


def group(inv: Inventory, key: str) -> int:
    """Unique parameters of one component group (0 if the model has none)."""
    return sum(t.count for t in inv.charged if t.group == key)


def layer_tensors(inv: Inventory, i: int = 0) -> list[Tensor]:
    return [t for t in inv.tensors if t.layer == i]


def layer(inv: Inventory, i: int = 0) -> int:
    """Unique parameters of encoder block ``i``."""
    return sum(t.count for t in inv.charged if t.layer == i)


def select(inv: Inventory, *needles: str, layer_index: int | None = 0) -> list[Tensor]:
    """Tensors whose name contains any needle (within one layer unless ``layer_index=None``)."""
    out = []
    for t in inv.tensors:
        if layer_index is not None and t.layer is not None and t.layer != layer_index:
            continue
        if any(n in t.name for n in needles):
            out.append(t)
    return out


def total_of(tensors: Iterable[Tensor]) -> int:
    return sum(t.count for t in tensors if t.tied_to is None)


def saved_file(inv: Inventory, position_ids: bool = False) -> hub.Checkpoint:
    """The safetensors file ``save_pretrained`` writes for ``inv``, as the Hub reads it from the header: the
    names :func:`calculator.counts.saved_names` keeps (a tied weight once, under the embedding's name), each
    float32; ``position_ids``: plus the int64 ``[1, max_position_embeddings]`` buffer transformers saved
    before it registered it with ``persistent=False``."""
    kept = set(counts.saved_names(inv))
    stored = [hub.StoredTensor(t.name, "F32", tuple(t.shape), hub.SINGLE_FILE) for t in inv.tensors if t.name in kept]
    if position_ids:
        prefix = inv.arch.prefix if inv.arch is not None else ""
        stored.append(hub.StoredTensor(prefix + "embeddings.position_ids", "I64",
                                       (1, inv.config["max_position_embeddings"]), hub.SINGLE_FILE))
    return hub.Checkpoint(hub.ModelRef(inv.architecture), hub.DEFAULT_ENDPOINT, "0" * 40, dict(inv.config),
                          (hub.SINGLE_FILE,), tuple(stored), None, {}, False)


def file_vs_model(checkpoint: hub.Checkpoint, inv: Inventory, saved_from: Inventory | None = None) -> hub.Comparison:
    """:func:`calculator.hub.compare`: the file's names matched as ``from_pretrained`` loads them into ``inv``."""
    return hub.compare(inv, checkpoint, saved_from)


class Lang:
    """The helpers bound to one language."""

    def __init__(self, lang: str) -> None:
        self.lang = lang

    # numbers ---------------------------------------------------------------
    def n(self, value: Any) -> str:
        """Digit-grouped integer; an Inventory means its total."""
        if isinstance(value, Inventory):
            value = value.total
        return views.fmt_int(round(value), self.lang)

    def signed(self, value: Any) -> str:
        """A difference with its sign: +304,128 / −7,087,104 (a true minus sign)."""
        value = round(value)
        return ("+" if value > 0 else "−" if value < 0 else "") + views.fmt_int(abs(value), self.lang)

    def short(self, value: Any) -> str:
        if isinstance(value, Inventory):
            value = value.total
        return views.fmt_short(int(value), self.lang)

    def short_m(self, value: Any) -> str:
        """The English short form (109.5M) in every language: it is how figures are quoted."""
        if isinstance(value, Inventory):
            value = value.total
        return views.fmt_short(int(value), "en")

    def pct(self, part: Any, whole: Any = None) -> str:
        """A fraction as a percentage, or ``part / whole`` (Inventories mean their totals)."""
        if isinstance(part, Inventory):
            part = part.total
        if whole is None:
            return views.fmt_percent(float(part), self.lang)
        if isinstance(whole, Inventory):
            whole = whole.total
        return views.fmt_percent(part / whole if whole else 0.0, self.lang)

    def bytes(self, value: int) -> str:
        return views.fmt_bytes(int(value), self.lang)

    def paper(self, key: str) -> int:
        return PAPER_TOTALS[key][1]

    def paper_short(self, key: str) -> str:
        """The paper's figure as the paper writes it (110M), in either language."""
        return f"{PAPER_TOTALS[key][1] // 10**6}M"

    def label(self, key: str, **params: Any) -> str:
        return _label(key, self.lang, **params)

    # tables ----------------------------------------------------------------
    def table(self, inv: Inventory, compact: bool = True) -> str:
        """The per-tensor Markdown table of the views (layer 0 once and × L when ``compact``)."""
        return views.markdown_table(inv, self.lang, compact=compact)

    def differences_table(self, differences: Any, inv: Inventory) -> str:
        """Tensor | elements | why, for names in the file only or in the model only (``file_vs_model``)."""
        return hub_views.differences_table(differences, inv.architecture, self.lang)

    def breakdown_table(self, inv: Inventory) -> str:
        """Component | parameters | share, one row per group, and the total."""
        return views.breakdown_table(inv, self.lang)

    def tensor_table(self, tensors: Iterable[Tensor], total_label: str | None = None, frozen: str | None = None) -> str:
        """Tensor | shape | parameters for the given tensors, and their sum (ties once)."""
        return views.tensor_table(tensors, self.lang, total_label, frozen)

    def formula_table(self, inv: Inventory) -> str:
        """The closed form, symbolic and substituted, one row per line of ``views.formula``."""
        return views.formula_table(inv, self.lang)

    # pictures --------------------------------------------------------------
    def _figure(self, svg: str, caption: str | None) -> str:
        cap = f"<figcaption>{caption}</figcaption>" if caption else ""
        # One line: Markdown keeps a raw HTML block intact only without blank lines.
        return f'<figure class="bp-figure">{svg}{cap}</figure>'

    def share_chart(self, inv: Inventory, name: str | None = None, caption: str | None = None) -> str:
        return self._figure(charts.share_chart_svg(inv, self.lang, model_name=name), caption)

    def layer_diagram(self, inv: Inventory, name: str | None = None, caption: str | None = None) -> str:
        return self._figure(charts.layer_diagram_svg(inv, self.lang, model_name=name), caption)

    # output of the other views, for code blocks ----------------------------
    def text_report(self, inv: Inventory) -> str:
        return views.text_report(inv, self.lang)

    def text_summary(self, inv: Inventory) -> str:
        """The text report without its per-tensor listing (what the CLI prints first)."""
        return views.text_report(inv, self.lang, tensors=False)


def page_context(lang: str) -> dict[str, Any]:
    """Everything a page may use, for one language."""
    helpers = Lang(lang)
    ctx: dict[str, Any] = {
        "lang": lang,
        # inventories
        "model": model,
        "custom": custom,
        "presets": PRESETS,
        "base": model("bert-base-uncased"),
        "large": model("bert-large-uncased"),
        # lookups
        "check": check,
        "tensor": tensor,
        "group": group,
        "layer": layer,
        "layer_tensors": layer_tensors,
        "select": select,
        "total_of": total_of,
        "round_to": round_to,
        "paper_rounding": PAPER_ROUNDING,
        "shape": views.fmt_shape,
        "groups": views.group_breakdown,
        "sections": views.section_breakdown,
        "per_layer": views.per_layer,
        "embedding_split": views.embedding_split,
        "num_parameters": views.num_parameters,
        # every tool's count and why it differs; the fine-tuning planner (LoRA as peft applies it, freezing)
        "reconcile": counts.reconcile,
        "lora": peft.lora,
        "freeze": peft.freeze,
        "formula": views.formula,
        "memory": views.memory,
        "to_json": views.to_json,
        # the other systems readers bring
        "transformer": transformer,
        "keras_model": keras_model,
        "snippet_kwargs": snippet_kwargs,
        "active_parameters": active_parameters,
        "ultrafastbert": ULTRAFASTBERT,
        "mistake": mistake,
        "all_mistakes": all_mistakes,
        # a checkpoint file as the Hub counts it, against the model from_pretrained builds (calculator/hub.py)
        "saved_file": saved_file,
        "file_vs_model": file_vs_model,
        "hub_max_header": hub.MAX_HEADER,
    }
    # one training step's FLOPs and memory, and what other tools print for it
    ctx.update(costs_pages.context())
    # the peak against a card and the largest batch that fits (what-fits.md)
    ctx.update(fits_pages.context())
    for name in (
        "n", "signed", "short", "short_m", "pct", "bytes", "paper", "paper_short", "label", "table", "breakdown_table",
        "tensor_table", "formula_table", "differences_table", "share_chart", "layer_diagram", "text_report", "text_summary",
    ):
        ctx[name] = getattr(helpers, name)
    base_cfg = ctx["base"].config
    # The symbols of the paper and the formula, for bert-base-uncased.
    ctx.update(
        H=base_cfg["hidden_size"],
        L=base_cfg["num_hidden_layers"],
        A=base_cfg["num_attention_heads"],
        I=base_cfg["intermediate_size"],
        V=base_cfg["vocab_size"],
        P=base_cfg["max_position_embeddings"],
        T=base_cfg["type_vocab_size"],
        d_head=base_cfg["hidden_size"] // base_cfg["num_attention_heads"],
    )
    return ctx
