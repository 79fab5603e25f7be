"""FlauBERT (``modeling_flaubert.py``): XLM's tensors (:mod:`.xlm`) under ``Flaubert`` class names, for French.

``FlaubertConfig`` adds two keys that change how the layers run, not what they hold: ``pre_norm`` (each
LayerNorm before its sub-layer instead of after; flaubert_large_cased) and ``layerdrop`` (in training, each
layer is skipped with that probability). Its defaults are XLM's; the published checkpoints have 68,729 tokens
(67,542 uncased), 512 positions and one language, so no language table.
"""
from __future__ import annotations

from typing import Any, Mapping

from ..config import Field, read_fields
from ..costs import CostModel, Sim, T, dropouts, unread
from ..errors import CalcError
from ..model import Inventory
from . import xlm
from .base import Preset
from .common import L

FIELDS = xlm.FIELDS[:8] + (
    Field("pre_norm", False, kind="bool", sample=(0, 1),
          label=L("LayerNorm before each sub-layer (pre_norm; adds no parameters)",
                  "层归一化放在每个子层之前（pre_norm；不增加参数）")),
) + xlm.FIELDS[8:]


def read(raw: Mapping[str, Any]) -> dict[str, Any]:
    """XLM's reading (the adaptive softmax's divisor too) with FlauBERT's one more field."""
    values = read_fields(FIELDS, raw, xlm.ALIASES)
    values["asm_div_value"] = xlm._div_value(raw)
    return values


def step_check(inv: Inventory) -> None:
    """XLM's refusals, and ``pre_norm``: transformers 5.23's FlaubertModel then passes ``cache[i]`` to each
    attention, and its cache cannot be indexed (a TypeError): no step to cost (flaubert_large_cased has it)."""
    if inv.config["pre_norm"] and inv.config["n_layers"] > 0:  # no layer, no cache[i]: it runs
        raise CalcError("costs_forward_fails", key="pre_norm", value=True)
    xlm.step_check(inv)


#: XLM's keys, and ``layerdrop`` (default 0): in training it skips each layer at random, so the step has no one
#: cost; a value above 0 is refused (``costs_step_value``) rather than costed as if no layer were skipped.
KEYS = xlm.KEYS + unread(dropouts("layerdrop", default=0.0))
def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """XLM's program (``modeling_flaubert.py`` copies XLM's attention, feed-forward and model), the position ids
    expanded to [B, L] before their lookup as FlaubertModel does."""
    return xlm.step_program(sim, inv, b, n, positions_per_row=True)


COSTS = CostModel(step_program, xlm.COSTS.max_seq_len, architectures=xlm.covered("Flaubert"), check=step_check,
                  checkpointing=False, keys=KEYS, autocast=True, buffers=xlm.buffers)


def flaubert_config(vocab: int, d: int, layers: int, heads: int) -> dict[str, Any]:
    return xlm.xlm_config(vocab, d, layers, heads, model_type="flaubert")


FAMILY = xlm.FAMILY.derive(
    model_type="flaubert",
    base="FlaubertModel",
    fields=FIELDS,
    read=read,
    architectures=xlm.architectures("Flaubert"),
    title=L("FlauBERT", "FlauBERT"),
    presets=(
        # https://huggingface.co/flaubert/flaubert_base_cased/blob/main/config.json (FlaubertWithLMHeadModel);
        # its model card: 12 layers, 12 heads, 768 wide, "138 M" parameters.
        Preset("flaubert/flaubert_base_cased", flaubert_config(68729, 768, 12, 12), "FlaubertWithLMHeadModel"),
        # https://huggingface.co/flaubert/flaubert_base_uncased/blob/main/config.json ("137 M")
        Preset("flaubert/flaubert_base_uncased", flaubert_config(67542, 768, 12, 12), "FlaubertWithLMHeadModel"),
        # https://huggingface.co/flaubert/flaubert_small_cased/blob/main/config.json ("54 M")
        Preset("flaubert/flaubert_small_cased", flaubert_config(68729, 512, 6, 8), "FlaubertWithLMHeadModel"),
        # https://huggingface.co/flaubert/flaubert_large_cased/blob/main/config.json ("373 M"; pre_norm)
        Preset("flaubert/flaubert_large_cased", flaubert_config(68729, 1024, 24, 16), "FlaubertWithLMHeadModel"),
    ),
    rank=73,
    costs=COSTS,
)
