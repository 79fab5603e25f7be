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
    #: Megatron-BERT's hand-written attention: ``attention_probs = softmax(attention_scores)`` gives the
    #: probabilities a new name, so the scaled scores stay named until the attention returns.
    keep_scores: bool = False
    #: Megatron-BERT's layer returns ``(layer_output, attention_probs)``: the encoder's ``layer_outputs`` holds the
    #: probabilities until the next layer returns (elsewhere the layer's ``_`` drops them as it returns).
    returns_probs: bool = False
    #: Where the feed-forward's norm output loses its last name (its storage then goes unless the dense keeps it):
    #: "dense" (RoBERTa-PreLN's ``Intermediate`` rebinds it to the dense's output), "act" (XLM-R-XL's
    #: ``feed_forward_chunk`` rebinds it to the intermediate's result), "chunk" (Megatron's ``ln_output``,
    #: named until the chunk returns).
    ffn_norm_dies: str = "chunk"

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

    def step(self, prefix: str, i: int, heads: int, after: Callable[[Sim, T], T] | None = None,
             returned: list[T] | None = None) -> Callable[[Sim, T], T]:
        """The layer's forward as a checkpointable block; ``after`` runs on its output (X-MOD's adapters).

        Every name is dropped where the modeling files drop it (the op-by-op replay, :mod:`..costs.lifetime`): the
        attention's norm output is a local of ``*Attention.forward``, the context goes when the self-output has
        used it, the probabilities with the layer's frame (or, :attr:`returns_probs`, into ``returned`` for the
        encoder to drop)."""
        p = f"{prefix}encoder.layer.{i}."

        def residual(sim: Sim, x: T, out: T) -> T:
            return sim.add(x, out) if self.residual_first else sim.add(out, x)

        def sublayer_output(sim: Sim, dense: str, x: T, residual_input: T, drop: bool) -> T:
            """``*SelfOutput`` / ``*Output``: dense, dropout (rebinding), the sum; their locals go as it returns."""
            mark = sim.scope()
            h = sim.linear(dense, x)
            if drop:
                h = sim.rebind(h, sim.dropout(h, True))
            return sim.end_scope(mark, residual(sim, residual_input, h))

        def run(sim: Sim, x: T) -> T:
            s = p + "attention.self."
            drop = sim.drops(self.dropout_key) if self.dropout_key is not None else True
            layer = sim.scope()  # *Layer.forward
            attention = sim.scope()  # *Attention.forward: the norm's output named until it returns
            normed = sim.layer_norm(p + self.attention_norm, x)
            probs: list[T] = []
            context = bert.step_attention(sim, normed, heads, s + "query", s + "key", s + "value", held=probs,
                                          keep_scores=self.keep_scores)
            attended = sublayer_output(sim, p + "attention.output.dense", context, x, drop)
            sim.release(context)  # ``attention_output = self.output(attention_output, ...)``
            attended = sim.end_scope(attention, attended, *probs)
            chunk = sim.scope()  # feed_forward_chunk
            normed = sim.layer_norm(p + self.ffn_norm, attended)
            inner = sim.linear(p + "intermediate.dense", normed)
            if self.ffn_norm_dies == "dense":
                sim.release(normed)
            # GELU whatever the config says (keeps its input), or the config's activation; rebinding the dense's output
            inner = sim.rebind(inner, sim.keep_input(inner) if self.act_key is None else sim.act(self.act_key, inner))
            if self.ffn_norm_dies == "act":
                sim.release(normed)
            out = sim.end_scope(chunk, sublayer_output(sim, p + "output.dense", inner, attended,
                                                       drop and self.output_dropout))
            if after is not None:
                out = after(sim, out)
            if self.returns_probs and returned is not None:
                returned.extend(probs)
                return sim.end_scope(layer, out, *probs)
            return sim.end_scope(layer, out)

        return run


@dataclass(frozen=True)
class PreLNEncoder:
    """L :class:`PreLNLayer` s and the LayerNorm after the last (``final_norm``, under the backbone's prefix)."""

    layer: PreLNLayer
    final_norm: str
    #: Whether ``final_norm`` runs in the encoder's ``forward`` (Megatron-BERT, XLM-R-XL) or in the model's, after
    #: the encoder has returned (RoBERTa-PreLN: ``encoder_outputs`` names the last layer's output until the model
    #: returns).
    norm_in_encoder: bool = True

    def tensors(self, t: TensorList, c: dict[str, Any], prefix: str) -> None:
        for i in range(c["num_hidden_layers"]):
            self.layer.tensors(t, prefix, i, c["hidden_size"], c["intermediate_size"])
        t.layer_norm(prefix + self.final_norm, c["hidden_size"], section="encoder")

    def step(self, sim: Sim, inv: Inventory, prefix: str, x: T) -> T:
        """The encoder's forward, then the final norm: ``hidden_states`` rebound by every layer (the embeddings'
        output stays named by the model's ``embedding_output``), a layer's returned probabilities dropped when the
        next layer returns (``layer_outputs`` rebound); the final norm's input named until the function that
        runs it returns."""
        heads = inv.config["num_attention_heads"]
        mark = sim.scope()  # *Encoder.forward
        held: list[T] = []
        for i in range(inv.config["num_hidden_layers"]):
            returned: list[T] = []
            y = sim.layer(self.layer.step(prefix, i, heads, returned=returned), x)
            if i:
                sim.release(x)
            sim.release(*held)
            held, x = returned, y
        if self.norm_in_encoder:
            return sim.end_scope(mark, sim.layer_norm(prefix + self.final_norm, x))
        x = sim.end_scope(mark, x)
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
