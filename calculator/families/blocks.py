"""Blocks several families share, each declared once with its tensors *and* its forward (issue 31 item 1).

transformers pairs a module's ``__init__`` (what it registers) with its ``forward`` (what it runs); here a
block is a small frozen value that builds its tensors (:meth:`PreLNLayer.tensors`) and runs its step
(:meth:`PreLNLayer.step`) from the same names, so a family that uses it cannot list one set of modules and
run another.

:class:`PreLNLayer` is BERT's layer with each LayerNorm moved in front of its block (fairseq's
``--encoder-normalize-before``): Megatron-BERT, RoBERTa-PreLayerNorm, XLM-RoBERTa-XL and X-MOD's
``pre_norm`` are four values of it that differ only in what transformers names the two norms, where it
registers them (``state_dict`` order), and three small forward details.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ..costs import Sim, T
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert

#: The six parts of a pre-LN layer, named by role; :attr:`PreLNLayer.order` lists them as the layer registers them.
ATTENTION_NORM, QKV, ATTENTION_OUTPUT, FFN_NORM, INTERMEDIATE, OUTPUT = (
    "attention_norm", "qkv", "attention_output", "ffn_norm", "intermediate", "output")


@dataclass(frozen=True)
class PreLNLayer:
    """One pre-LN encoder layer: norm, self-attention, dense, dropout, + input; norm, feed-forward pair, + residual.

    ``attention_norm`` and ``ffn_norm`` are the two LayerNorms' names inside the layer (the attention's
    Q/K/V are ``attention.self.*``, its output ``attention.output.dense``, the pair ``intermediate.dense``
    and ``output.dense``, as in BERT); ``order`` is the registration order of the six roles.
    """

    attention_norm: str
    ffn_norm: str
    order: tuple[str, ...]
    #: Whether the feed-forward's output goes through dropout before the sum (XLM-R-XL's ``XLMRobertaXLOutput``
    #: has none).
    output_dropout: bool = True
    #: The config key of the feed-forward's activation, or None where the model calls GELU whatever the config
    #: says (the step then keeps GELU's input; the key is refused unless it is GELU).
    act_key: str | None = None
    #: The config key of the two hidden dropouts, or None where the model's code fixes them (always on).
    dropout_key: str | None = None
    #: The sums written ``input + sublayer`` (Megatron's) rather than ``sublayer + input``: the same figures,
    #: kept in transformers' own order for the op-by-op replay.
    residual_first: bool = False

    def tensors(self, t: TensorList, prefix: str, i: int, hidden: int, intermediate: int) -> None:
        """The layer's tensors under ``{prefix}encoder.layer.{i}.``, in :attr:`order`."""
        p = f"{prefix}encoder.layer.{i}."
        for role in self.order:
            if role == ATTENTION_NORM:
                t.layer_norm(p + self.attention_norm, hidden, layer=i)
            elif role == QKV:
                for proj in ("query", "key", "value"):
                    t.linear(p + "attention.self." + proj, hidden, hidden, "attention_qkv", i)
            elif role == ATTENTION_OUTPUT:
                t.linear(p + "attention.output.dense", hidden, hidden, "attention_output", i)
            elif role == FFN_NORM:
                t.layer_norm(p + self.ffn_norm, hidden, layer=i)
            elif role == INTERMEDIATE:
                t.linear(p + "intermediate.dense", intermediate, hidden, "feed_forward", i)
            elif role == OUTPUT:
                t.linear(p + "output.dense", hidden, intermediate, "feed_forward", i)
            else:
                raise ValueError(f"no such part of a pre-LN layer: {role!r}")

    def step(self, prefix: str, i: int, heads: int,
             after: Callable[[Sim, T], T] | None = None) -> Callable[[Sim, T], T]:
        """The layer's forward as a checkpointable block; ``after`` runs on its output (X-MOD's adapters)."""
        p = f"{prefix}encoder.layer.{i}."

        def run(sim: Sim, x: T) -> T:
            s = p + "attention.self."
            drop = sim.drops(self.dropout_key) if self.dropout_key is not None else True
            normed = sim.layer_norm(p + self.attention_norm, x)
            context = bert.step_attention(sim, normed, heads, s + "query", s + "key", s + "value")
            out = sim.dropout(sim.linear(p + "attention.output.dense", context), drop)
            attended = sim.add(x, out) if self.residual_first else sim.add(out, x)
            inner = sim.linear(p + "intermediate.dense", sim.layer_norm(p + self.ffn_norm, attended))
            inner = sim.keep_input(inner) if self.act_key is None else sim.act(self.act_key, inner)  # GELU: its input
            out = sim.linear(p + "output.dense", inner)
            if self.output_dropout:
                out = sim.dropout(out, drop)
            out = sim.add(attended, out) if self.residual_first else sim.add(out, attended)
            return after(sim, out) if after is not None else out

        return run


@dataclass(frozen=True)
class PreLNEncoder:
    """L :class:`PreLNLayer` s and the LayerNorm after the last (``final_norm``, under the backbone's prefix)."""

    layer: PreLNLayer
    final_norm: str

    def tensors(self, t: TensorList, c: dict[str, Any], prefix: str) -> None:
        for i in range(c["num_hidden_layers"]):
            self.layer.tensors(t, prefix, i, c["hidden_size"], c["intermediate_size"])
        t.layer_norm(prefix + self.final_norm, c["hidden_size"], section="encoder")

    def step(self, sim: Sim, inv: Inventory, prefix: str, x: T) -> T:
        heads = inv.config["num_attention_heads"]
        for i in range(inv.config["num_hidden_layers"]):
            x = sim.layer(self.layer.step(prefix, i, heads), x)
        return sim.layer_norm(prefix + self.final_norm, x)


#: The embedding tables by their name in ``embeddings.``, and the config key of each one's row count.
_TABLES = {"word_embeddings": "vocab_size", "position_embeddings": "max_position_embeddings",
           "token_type_embeddings": "type_vocab_size"}


def embeddings(t: TensorList, c: dict[str, Any], prefix: str, order: tuple[str, ...]) -> None:
    """BERT's three tables of width H (and ``LayerNorm`` where ``order`` lists it), registered in ``order``."""
    e = prefix + "embeddings."
    for name in order:
        if name == "LayerNorm":
            t.layer_norm(e + name, c["hidden_size"], group="embeddings")
        else:
            t.embedding(e + name, c[_TABLES[name]], c["hidden_size"], "embeddings")


def formula_without_embedding_norm(inv: Inventory) -> Formula:
    """Three tables without a LayerNorm, L pre-LN layers (BERT's terms: the same tensors), the final LayerNorm,
    BERT's pooler: Megatron-BERT's and XLM-R-XL's count (the embeddings' LayerNorm moved to the encoder's end)."""
    c = inv.config
    v, h, p, t, n, i = (
        c["vocab_size"], c["hidden_size"], c["max_position_embeddings"], c["type_vocab_size"],
        c["num_hidden_layers"], c["intermediate_size"],
    )
    lines = [
        FormulaLine("embeddings", "(V + P + T)·H", f"({v} + {p} + {t})·{h}", (v + p + t) * h),
        *layers_lines(*bert.layer_terms(h, i), n),
        FormulaLine("final_layer_norm", "2H", f"2·{h}", 2 * h),
    ]
    if inv.pooler:
        lines.append(bert.pooler_line(h))
    return Formula({"V": v, "P": p, "T": t, "H": h, "I": i, "L": n}, tuple(lines + head_line(inv)))
