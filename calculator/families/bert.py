"""BERT as Hugging Face ``transformers`` builds it (``modeling_bert.py``).

The encoder layer defined here is reused by RoBERTa and ELECTRA, whose layers
are BERT's with other names only for the embeddings and heads.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping

from ..costs import BERT_KEYS, CostModel, T, position_buffers  # the declarations: the simulator (Sim) waits for a step
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from .base import Architecture, Family, HeadBuilder, Preset, Task
from .common import BERT_FIELDS, heads_divide
from .common import POSITION_TYPE, CROSS_ATTENTION

if TYPE_CHECKING:  # the page's default answer counts parameters only: the simulator is imported when a step is costed
    from ..costs import Sim


@dataclass(frozen=True)
class BertLayer:
    """One post-LN ``BertLayer``: self-attention, dense, dropout, ``LayerNorm(+ input)``; the feed-forward pair,
    dropout, ``LayerNorm(+ residual)``; its tensors (:meth:`tensors`) and its forward (:meth:`step`) from the same
    module names, as transformers pairs a module's ``__init__`` and ``forward`` (issue 31 item 1).

    BERT's clones use it as it is; the fields are the small forward details other files write differently
    (where the attention's probabilities lose their last name, RemBERT's hand-written scores), each with the
    ``modeling_*.py`` that has it; the tensors never change.
    """

    #: Where the probabilities die: "layer" (``BertLayer``'s ``_``, held until the layer returns), "attention"
    #: (``LayoutLMAttention``'s ``hidden_states, _ = self.self(...)``: gone as the attention returns, after its
    #: output's LayerNorm) or "encoder" (RemBERT's layer returns them; the encoder's ``layer_outputs`` holds them
    #: until the next layer returns: :meth:`step`'s ``returned``).
    probs_die: str = "layer"
    #: RemBERT's ``attention_probs = softmax(attention_scores)``: the scaled scores keep their name beside the
    #: probabilities until the attention returns (:func:`step_attention`'s ``keep_scores``).
    keep_scores: bool = False
    #: ALIGN's (LayoutLM's) eager attention: the softmax in float32 (:func:`step_attention`'s ``softmax32``).
    softmax32: bool = False
    #: A self-attention the family's file writes its own way (sim, x, ``attention.self.``'s prefix, heads) ->
    #: the context, its probabilities' lifetimes its own (LUKE's, TAPAS's); None: :func:`step_attention`.
    attention: "Callable[[Sim, T, str, int], T] | None" = None

    def tensors(self, t: TensorList, prefix: str, i: int, hidden: int, intermediate: int) -> None:
        """The layer's tensors under ``{prefix}encoder.layer.{i}.``: Q, K, V, the attention's output and its
        LayerNorm, the feed-forward pair, its LayerNorm (``BertLayer.__init__``'s order)."""
        p = f"{prefix}encoder.layer.{i}."
        for proj in ("query", "key", "value"):
            t.linear(p + "attention.self." + proj, hidden, hidden, "attention_qkv", i)
        t.linear(p + "attention.output.dense", hidden, hidden, "attention_output", i)
        t.layer_norm(p + "attention.output.LayerNorm", hidden, layer=i)
        t.linear(p + "intermediate.dense", intermediate, hidden, "feed_forward", i)
        t.linear(p + "output.dense", hidden, intermediate, "feed_forward", i)
        t.layer_norm(p + "output.LayerNorm", hidden, layer=i)

    def step(self, prefix: str, i: int, heads: int, mask: T | None = None,
             returned: list[T] | None = None) -> Callable[[Sim, T], T]:
        """The layer's forward as a checkpointable block (``hidden_act``, the two dropouts; ``mask``: an additive
        mask added to the scores, LayoutLM's); every name dropped where the modeling file drops it (the op-by-op
        replay, :mod:`..costs.lifetime`); ``returned`` gets the probabilities where :attr:`probs_die` is
        "encoder"."""
        p = f"{prefix}encoder.layer.{i}."

        def run(sim: Sim, x: T) -> T:
            s = p + "attention.self."
            hidden = sim.drops("hidden_dropout_prob")
            layer = sim.scope()  # BertLayer.forward
            attention = sim.scope()  # BertAttention.forward
            probs: list[T] = []
            if self.attention is not None:
                context = self.attention(sim, x, s, heads)
            else:
                context = step_attention(sim, x, heads, s + "query", s + "key", s + "value", mask=mask,
                                         softmax32=self.softmax32, keep_scores=self.keep_scores, held=probs)
            attended = self_output(sim, p + "attention.output.", context, x, hidden)
            sim.release(context)  # BertAttention: ``attention_output = self.output(attention_output, ...)``
            if self.probs_die == "attention":
                attended = sim.end_scope(attention, attended)
            chunk = sim.scope()  # feed_forward_chunk
            inner = sim.linear(p + "intermediate.dense", attended)
            inner = sim.rebind(inner, sim.act("hidden_act", inner))
            out = sim.end_scope(chunk, self_output(sim, p + "output.", inner, attended, hidden))
            if self.probs_die == "encoder":
                assert returned is not None, "the encoder holds the probabilities this layer returns"
                returned.extend(probs)
                return sim.end_scope(layer, out, *probs)
            return sim.end_scope(layer, out)

        return run


#: BERT's own layer (ERNIE's, RoBERTa's, ELECTRA's, RoCBert's...).
BERT_LAYER = BertLayer()


def encoder_layer(t: TensorList, prefix: str, i: int, hidden: int, intermediate: int) -> None:
    """One ``BertLayer``'s tensors (:meth:`BertLayer.tensors`)."""
    BERT_LAYER.tensors(t, prefix, i, hidden, intermediate)


def encoder(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    for i in range(c["num_hidden_layers"]):
        BERT_LAYER.tensors(t, prefix, i, c["hidden_size"], c["intermediate_size"])


def pooler(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    t.linear(prefix + "pooler.dense", c["hidden_size"], c["hidden_size"], "pooler")


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    h = c["hidden_size"]
    e = prefix + "embeddings."
    t.embedding(e + "word_embeddings", c["vocab_size"], h, "embeddings")
    t.embedding(e + "position_embeddings", c["max_position_embeddings"], h, "embeddings")
    t.embedding(e + "token_type_embeddings", c["type_vocab_size"], h, "embeddings")
    t.layer_norm(e + "LayerNorm", h, group="embeddings")
    encoder(t, c, prefix)
    if with_pooler:
        pooler(t, c, prefix)


def tied_decoder(
    t: TensorList,
    name: str,
    vocab: int,
    width: int,
    embedding: str,
    bias: str | None,
    tie: bool,
) -> None:
    """An output projection onto the vocabulary whose weight may be the input embedding.

    ``bias`` names the head's own bias Parameter that HF links into
    ``decoder.bias`` when the weights are tied (and only then, in transformers 5).
    """
    t.add(name + ".weight", (vocab, width), "head", shares=embedding if tie else None, module="linear")
    t.add(name + ".bias", (vocab,), "head", shares=bias if (tie and bias) else None, module="linear")


def mlm_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``BertOnlyMLMHead``: its own vocabulary bias first (a Parameter of the head), then transform, decoder."""
    h, v = c["hidden_size"], c["vocab_size"]
    t.add("cls.predictions.bias", (v,), "head")
    t.linear("cls.predictions.transform.dense", h, h, "head")
    t.layer_norm("cls.predictions.transform.LayerNorm", h, group="head")
    tied_decoder(
        t,
        "cls.predictions.decoder",
        v,
        h,
        prefix + "embeddings.word_embeddings.weight",
        "cls.predictions.bias",
        c["tie_word_embeddings"],
    )


def nsp_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    t.linear("cls.seq_relationship", 2, c["hidden_size"], "head")


def pretraining_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    mlm_head(t, c, prefix)
    nsp_head(t, c, prefix)


def linear_head(name: str, out: str | int, width: str = "hidden_size") -> Any:
    """A single ``nn.Linear(c[width], out)``; ``out`` is a number or a config key such as num_labels."""

    def head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
        t.linear(name, c[out] if isinstance(out, str) else out, c[width], "head")

    return head


#: A head's forward on the encoder's output: (sim, the sequence, the pooled output or None, the config key of the
#: classifier's dropout) -> the class's outputs. The key is the caller's (BERT's ``classifier_dropout``, I-BERT's
#: and MPNet's ``hidden_dropout_prob``).
HeadStep = Callable[["Sim", T, "T | None", str], "list[T]"]


def model_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """The bare model returns the sequence and, where it pools, the pooled output."""
    return [seq] + ([pooled] if pooled is not None else [])


def mlm_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``BertOnlyMLMHead``: :func:`step_mlm` under ``cls.predictions`` (``ACT2FN[config.hidden_act]``)."""
    return [step_mlm(sim, "cls.predictions", seq, act_key="hidden_act")]


def nsp_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``BertOnlyNSPHead``: ``cls.seq_relationship`` on the pooled output."""
    assert pooled is not None
    return [sim.linear("cls.seq_relationship", pooled)]


def pretraining_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``BertPreTrainingHeads``: the MLM head on the sequence, then NSP on the pooled output."""
    return mlm_step(sim, seq, pooled, dropout_key) + nsp_step(sim, seq, pooled, dropout_key)


def pooled_classifier_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``classifier`` on the pooled output after dropout (sequence classification, BERT's)."""
    assert pooled is not None
    return [sim.linear("classifier", sim.dropout(pooled, sim.drops(dropout_key)))]


def token_classifier_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``classifier`` on every token after dropout (token classification)."""
    return [sim.linear("classifier", sim.dropout(seq, sim.drops(dropout_key)))]


def qa_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``qa_outputs``, split into start and end logits (:func:`step_qa`)."""
    return step_qa(sim, seq)


@dataclass(frozen=True)
class Head:
    """What a BERT-style task class adds to the backbone, by task: whether it builds the pooler (None: the
    caller's choice, the bare model), its head's tensors and its forward (``step``: None where the step refuses
    the class, multiple choice), and the two flags the planner and views read."""

    pooler: bool | None
    head: HeadBuilder | None = None
    uses_num_labels: bool = False
    ties_embeddings: bool = False
    step: HeadStep | None = None
    #: The label count the head takes and no other (DistilBERT's QA head: 2), as :class:`Architecture`'s.
    labels_must_be: int | None = None


#: BERT's task classes, by :class:`Task` (Megatron-BERT's too, and RoBERTa's where it keeps them).
BERT_HEADS: dict[str, Head] = {
    Task.MODEL: Head(None, step=model_step),
    Task.PRETRAINING: Head(True, pretraining_head, ties_embeddings=True, step=pretraining_step),
    Task.MASKED_LM: Head(False, mlm_head, ties_embeddings=True, step=mlm_step),
    Task.LM_HEAD_MODEL: Head(False, mlm_head, ties_embeddings=True, step=mlm_step),
    Task.CAUSAL_LM: Head(False, mlm_head, ties_embeddings=True, step=mlm_step),
    Task.NEXT_SENTENCE_PREDICTION: Head(True, nsp_head, step=nsp_step),
    Task.SEQUENCE_CLASSIFICATION: Head(True, linear_head("classifier", "num_labels"), uses_num_labels=True,
                                       step=pooled_classifier_step),
    Task.MULTIPLE_CHOICE: Head(True, linear_head("classifier", 1)),
    Task.TOKEN_CLASSIFICATION: Head(False, linear_head("classifier", "num_labels"), uses_num_labels=True,
                                    step=token_classifier_step),
    Task.QUESTION_ANSWERING: Head(False, linear_head("qa_outputs", "num_labels"), uses_num_labels=True, step=qa_step),
}


def run_head(heads: Mapping[str, Head], sim: Sim, inv: Inventory, seq: T, pooled: T | None,
             dropout_key: str = "classifier_dropout") -> list[T]:
    """The class's head forward, as its :class:`Architecture`'s task picks it from ``heads`` (the same
    :class:`Head` whose tensors the class builds)."""
    step = heads[step_task(inv)].step
    if step is None:
        raise AssertionError(f"{inv.architecture}: its step is refused before the head runs")
    return step(sim, seq, pooled, dropout_key)


def task_classes(stem: str, prefix: str, tasks: tuple[str, ...], heads: Mapping[str, Head] = BERT_HEADS,
                 **more: Any) -> tuple[Architecture, ...]:
    """A family's classes, in ``tasks`` order, named as transformers names them (``MegatronBert`` +
    ``ForMaskedLM``; ``Model`` for the bare one), the backbone under ``prefix`` (the bare model's at the top),
    each task's head from ``heads``: the list BERT-style families used to restate line by line. ``more``: the
    same extra keywords on every task class (``head_first``)."""
    return tuple(task_class(stem + ("Model" if task == Task.MODEL else task), task, prefix, heads[task], **more)
                 for task in tasks)


def task_class(name: str, task: str, prefix: str, head: Head, **more: Any) -> Architecture:
    """One class built from its task's :class:`Head` (the one whose forward the step runs), for a class
    transformers names otherwise than ``stem + task`` (``ReformerModelWithLMHead``, ``XLMWithLMHeadModel``).
    ``more``: further keywords of a task class (``requires``, ``head_first``); the bare model takes none."""
    if task == Task.MODEL:
        return Architecture(name=name, task=task, prefix="", pooler=head.pooler)
    return Architecture(name=name, task=task, prefix=prefix, pooler=head.pooler, head=head.head,
                        uses_num_labels=head.uses_num_labels, ties_embeddings=head.ties_embeddings,
                        labels_must_be=head.labels_must_be, **more)


#: BERT's nine classes in transformers' order.
BERT_TASKS = (Task.MODEL, Task.PRETRAINING, Task.MASKED_LM, Task.LM_HEAD_MODEL, Task.NEXT_SENTENCE_PREDICTION,
              Task.SEQUENCE_CLASSIFICATION, Task.MULTIPLE_CHOICE, Task.TOKEN_CLASSIFICATION, Task.QUESTION_ANSWERING)


# --------------------------------------------------------------------- formula


def layer_terms(h: int, i: int) -> tuple[str, str, int]:
    """One post-LN BERT layer: Q, K, V and output projections with biases, the feed-forward pair, two LayerNorms."""
    symbolic = "4H² + 4H + 2HI + I + H + 4H"
    substituted = f"4·{h}² + 4·{h} + 2·{h}·{i} + {i} + {h} + 4·{h}"
    return symbolic, substituted, 4 * h * h + 4 * h + 2 * h * i + i + h + 4 * h


def embeddings_line(v: int, p: int, t: int, h: int) -> FormulaLine:
    """Word, position and token-type tables of width H, and their LayerNorm."""
    return FormulaLine("embeddings", "(V + P + T)·H + 2H", f"({v} + {p} + {t})·{h} + 2·{h}", (v + p + t) * h + 2 * h)


def factorised_embeddings_line(v: int, p: int, t: int, e: int, h: int) -> FormulaLine:
    """Tables of width E, their LayerNorm, and the E → H projection (ALBERT; ELECTRA when E ≠ H)."""
    return FormulaLine(
        "embeddings", "(V + P + T)·E + 2E + E·H + H",
        f"({v} + {p} + {t})·{e} + 2·{e} + {e}·{h} + {h}", (v + p + t) * e + 2 * e + e * h + h,
    )


def pooler_line(h: int) -> FormulaLine:
    return FormulaLine("pooler", "H² + H", f"{h}² + {h}", h * h + h)


def formula(inv: Inventory) -> Formula:
    """BERT (and RoBERTa, whose tensors are BERT's in another order)."""
    c = inv.config
    v, h, p, t, n, i = (
        c["vocab_size"], c["hidden_size"], c["max_position_embeddings"], c["type_vocab_size"],
        c["num_hidden_layers"], c["intermediate_size"],
    )
    lines = [embeddings_line(v, p, t, h), *layers_lines(*layer_terms(h, i), n)]
    if inv.pooler:
        lines.append(pooler_line(h))
    return Formula({"V": v, "P": p, "T": t, "H": h, "I": i, "L": n}, tuple(lines + head_line(inv)))


# --------------------------------------------------------------- training step


def step_embeddings(sim: Sim, inv: Inventory, prefix: str, b: int, n: int, positions_from_ids: bool = False,
                    dropout: bool = True, dropout_key: str = "hidden_dropout_prob", norm: bool = True,
                    frame: bool = True) -> T:
    """``BertEmbeddings`` (and RoBERTa's, ERNIE's): word + token type + position, LayerNorm, dropout.

    The dropout is active when the class has one (``dropout``) and ``dropout_key``'s probability is > 0;
    ``norm`` False: no LayerNorm (XLM-RoBERTa-XL's embeddings, whose norm moved into the pre-LN layers).
    ``frame``: the function is the model's own (its locals die as it returns); else it is the start of the
    caller's (RoCBert's embeddings go on after it in the same function), which ends the scope itself.

    The indices autograd keeps for a table's backward: ``input_ids`` [B, L]; BERT's
    token types are a gather from a buffer, [1, L] (then expanded), and its positions
    a slice of a buffer (not counted); RoBERTa's positions are computed from the ids,
    [B, L], and its token types gathered at them, [B, L].
    """
    e = prefix + "embeddings."
    mark = sim.scope()  # BertEmbeddings.forward: its locals die when it returns
    ids = sim.ids((b, n))
    if positions_from_ids:
        # create_position_ids_from_input_ids: mask = ne (bool) .int(); (cumsum (int64) .type_as(mask) + 0) * mask;
        # .long() + padding_idx: each temporary dropped once the next operation has used it, mask at the return.
        sim.transients((b * n, 4 * b * n, 8 * b * n, 4 * b * n, 4 * b * n, 4 * b * n, 8 * b * n), (1, 7, 3, 4, 5, 6, 7),
                       ("aten.ne", "aten._to_copy", "aten.cumsum", "aten._to_copy", "aten.add", "aten.mul",
                        "aten._to_copy"))
        positions = sim.ids((b, n))
        types = sim.ids((b, n))
    else:
        positions = sim.buffer((1, n))
        types = sim.expand(sim.ids((1, n)), (b, n))
    # inputs_embeds, token_type_embeddings, position_embeddings: names until the return; ``embeddings`` rebound.
    words = sim.embedding(e + "word_embeddings", ids, first=True)
    x = sim.add(words, sim.embedding(e + "token_type_embeddings", types))
    x = sim.rebind(x, sim.add(x, sim.embedding(e + "position_embeddings", positions)))
    if inv.config.get("use_task_id"):  # ERNIE: task_type_ids = zeros (int64); ``embeddings += ...`` in place
        x = sim.add_(x, sim.embedding(e + "task_type_embeddings", sim.ids((b, n))))
    if norm:
        x = sim.rebind(x, sim.layer_norm(e + "LayerNorm", x))
    x = sim.rebind(x, sim.dropout(x, dropout and sim.drops(dropout_key)))
    return sim.end_scope(mark, x) if frame else x


def step_attention(sim: Sim, x: T, heads: int, query: str, key: str, value: str, dropout: bool = True,
                   bias: T | None = None, dropout_key: str = "attention_probs_dropout_prob", frame: bool = True,
                   mask: T | None = None, softmax32: bool = False, held: list[T] | None = None,
                   keep_scores: bool = False) -> T:
    """Self-attention up to the context [B, L, H]: eager (``eager_attention_forward``, then the reshape), or
    SDPA when ``sim.attention`` is "sdpa" (:meth:`Sim.sdpa`).

    ``keep_scores``: the scaled scores keep their name until the function returns (Megatron-BERT's
    ``attention_probs = softmax(attention_scores)`` names the probabilities anew; BERT's rebinds one name).

    ``frame``: the function is the model's own (its scope ends here, returning the context and the
    probabilities); else it is part of the caller's, which gets the probabilities in ``held`` (eager) to name them
    as returned where its own function returns them.

    Q, K, V are split into heads (a view, then a transpose); ``matmul`` reshapes them
    to 3-D for ``bmm``, copying unless B or the heads are 1; softmax keeps its
    output, dropout its mask; the context is made contiguous again (a copy).
    """
    b, n, h = x.shape
    mark = sim.scope()  # BertSelfAttention.forward (``frame``: its own Python function, not part of a larger one)
    width = sim.linear_info(query).out_features
    d = width // heads

    q = sim.heads(sim.linear(query, x), heads, d)
    k = sim.heads(sim.linear(key, x), heads, d)
    v = sim.heads(sim.linear(value, x), heads, d)
    if sim.attention == "sdpa":
        # sdpa_attention_forward: no mask (input_ids alone; LayoutLM's additive one), dropout 0 (the step refuses
        # more), CPU's flash kernel; its output is [B, L, A, d] in memory, so ``transpose(1, 2).contiguous()`` and
        # the reshape are views (the output projection keeps the kernel's own output storage).
        assert bias is None, "MPNet's position bias has no SDPA path here"
        context = sim.contiguous(sim.transpose(sim.sdpa(q, k, v, mask), 1, 2))  # LayoutLM's additive mask too
        out = sim.contiguous(sim.reshape(context, (b, n, width)))
        return sim.end_scope(mark, out) if frame else out
    # eager_attention_forward: ``matmul(...) * scaling`` (the product a temporary); softmax, dropout and the
    # transpose's copy rebind their names; it returns the context and the probabilities, which the caller's
    # caller holds (BertLayer's ``_``) until it returns.
    product = sim.bmm(q, sim.transpose(k, 2, 3))
    scores = sim.pointwise(product)  # * scaling
    sim.release(product)
    if mask is not None or softmax32:  # LayoutLM's layers (ALIGN's eager_attention_forward)
        assert sim.attention == "eager" and bias is None, "the masked or float32-softmax attention is eager only here"
        if mask is not None:  # attn_weights = attn_weights + attention_mask
            scores = sim.rebind(scores, sim.add(scores, mask))
        if softmax32:  # softmax(attn_weights, dim=-1, dtype=torch.float32).to(query.dtype): the float32 one a temporary
            wide = sim.softmax_float32(scores)
            probs = wide if wide.itemsize == q.itemsize else sim.to_dtype(wide, q.itemsize)
            if probs.storage != wide.storage:
                sim.release(wide)
            probs = sim.rebind(scores, probs)
        else:
            probs = sim.rebind(scores, sim.keep_output(scores))
    else:
        if keep_scores:  # ``attention_scores / math.sqrt(self.attention_head_size)``
            scores = sim.made_by(scores, "aten.div")
        if bias is not None:  # MPNet: scores += position_bias, in place (AddBackward0 keeps nothing)
            scores = sim.add_(scores, bias)
        probs = sim.keep_output(scores) if keep_scores else sim.rebind(scores, sim.keep_output(scores))
    probs = sim.rebind(probs, sim.dropout(probs, dropout and sim.drops(dropout_key)))
    context = sim.bmm(probs, v)
    context = sim.rebind(context, sim.contiguous(sim.transpose(context, 1, 2)))
    out = sim.contiguous(sim.reshape(context, (b, n, width)))
    if held is not None:
        held.append(probs)
    return sim.end_scope(mark, out, probs) if frame else out


def self_output(sim: Sim, p: str, x: T, residual: T, dropout: bool) -> T:
    """``BertSelfOutput`` / ``BertOutput``: dense, dropout, ``LayerNorm(hidden_states + input_tensor)``; the dense
    output dropped at the dropout's rebinding, the sum and the dropout's output once the LayerNorm has run."""
    mark = sim.scope()
    h = sim.linear(p + "dense", x)
    h = sim.rebind(h, sim.dropout(h, dropout))
    total = sim.add(h, residual)
    out = sim.layer_norm(p + "LayerNorm", total)
    sim.release(h, total)
    return sim.end_scope(mark, out)


def step_encoder(sim: Sim, inv: Inventory, prefix: str, x: T, mask: T | None = None,
                 layer: BertLayer = BERT_LAYER) -> T:
    """``BertEncoder``: ``hidden_states`` rebound by every layer (the embeddings' output stays: BertModel's name);
    ``mask``: the additive one every layer adds to its scores (LayoutLM's)."""
    heads = inv.config["num_attention_heads"]
    for i in range(inv.config["num_hidden_layers"]):
        y = sim.layer(layer.step(prefix, i, heads, mask), x)
        if i:
            sim.rebind(x, y)
        x = y
    return x


def step_pooler(sim: Sim, prefix: str, x: T) -> T:
    """``BertPooler``: the first token, a Linear, tanh (rebinding the Linear's output)."""
    dense = sim.linear(prefix + "pooler.dense", sim.select(x, 1))
    return sim.rebind(dense, sim.keep_output(dense))


def step_backbone(sim: Sim, inv: Inventory, prefix: str, b: int, n: int, positions_from_ids: bool = False) -> tuple[T, T | None]:
    """``BertModel.forward`` (RoBERTa's): embeddings, encoder, pooler; its name of the embeddings' output goes when it
    returns (the sequence and the pooled output)."""
    mark = sim.scope()
    x = step_embeddings(sim, inv, prefix, b, n, positions_from_ids)
    seq = step_encoder(sim, inv, prefix, x)
    pooled = step_pooler(sim, prefix, seq) if inv.pooler else None
    sim.end_scope(mark, seq, *([pooled] if pooled is not None else []))
    return seq, pooled


def step_mlm(sim: Sim, module: str, x: T, decoder: str = "decoder", act_key: str | None = None) -> T:
    """``BertLMPredictionHead`` / ``RobertaLMHead``: dense, activation, LayerNorm, the vocabulary projection.

    The activation is ``act_key``'s (BERT's transform: ``ACT2FN[config.hidden_act]``), or a fixed
    GELU when None (RoBERTa's, MPNet's and Longformer's heads call ``gelu`` whatever the config says).
    """
    names = {"cls.predictions": ("transform.dense", "transform.LayerNorm"), "lm_head": ("dense", "layer_norm")}
    dense, norm = names[module]
    mark = sim.scope()
    x = sim.linear(f"{module}.{dense}", x)
    x = sim.rebind(x, sim.keep_input(x) if act_key is None else sim.act(act_key, x))
    x = sim.rebind(x, sim.layer_norm(f"{module}.{norm}", x))
    return sim.end_scope(mark, sim.rebind(x, sim.linear(f"{module}.{decoder}", x)))


def step_prefix(inv: Inventory) -> str:
    """Where the backbone sits in the class (``bert.`` in ``BertForMaskedLM``), as the family declares it."""
    return inv.arch.prefix


def step_task(inv: Inventory) -> str:
    """What the class's head does, as its :class:`Architecture` declares it (a :class:`Task` value:
    ``ForMaskedLM``, ``LMHeadModel``, ``ForCausalLM``..., ``""`` for the base model); never read off its name."""
    task = inv.arch.task
    if task is None:
        raise AssertionError(f"{inv.architecture} declares no task (Architecture(task=Task...))")
    return task


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """BERT's classes (ERNIE's are the same under ``ernie.``): the outputs each returns."""
    prefix = step_prefix(inv)
    kind = step_task(inv)
    if kind in EXACT_LIFETIMES and not inv.config.get("is_decoder"):  # no causal mask: every op is modelled
        sim.exact_lifetimes()
        sim.exact_forward()  # every name's release declared below
        sim.exact_autocast()  # and under autocast (each Linear's bf16 copies: costs.lifetime)
    seq, pooled = step_backbone(sim, inv, prefix, b, n)
    return step_heads(sim, inv, seq, pooled)


def step_heads(sim: Sim, inv: Inventory, seq: T, pooled: T | None) -> list[T]:
    """BERT's task heads on the encoder's output, as the class's task declares (:data:`BERT_HEADS`; Megatron-BERT's
    classes run them too, RoCBert's through its own table, which holds them): ``cls.predictions``,
    ``cls.seq_relationship``, ``classifier``, ``qa_outputs``."""
    return run_head(BERT_HEADS, sim, inv, seq, pooled)


#: BERT's classes whose every operation the lifetime simulator models (:mod:`calculator.costs.lifetime`).
EXACT_LIFETIMES = ("", "ForMaskedLM", "ForPreTraining", "ForNextSentencePrediction", "ForSequenceClassification",
                   "ForTokenClassification", "LMHeadModel", "ForCausalLM", "ForQuestionAnswering")


def step_pair_head(sim: Sim, seq: T, drop: bool, activation: Callable[[T], T]) -> list[T]:
    """RoBERTa's and ELECTRA's classification head (``RobertaClassificationHead``, ``ElectraClassificationHead``):
    the first token, dropout, ``classifier.dense``, ``activation`` (tanh keeps its output, GELU its input), dropout,
    ``classifier.out_proj``; each line rebinds ``x`` (the previous tensor dropped unless autograd keeps it)."""
    mark = sim.scope()
    first = sim.select(seq, 1)
    x = sim.dropout(first, drop)
    dense = sim.linear("classifier.dense", x)
    # ``x = self.dense(x)`` drops the dropout's output; an inactive dropout (p = 0, eval) returned ``features``
    # itself, which the callers still name (its storage lives on: the autocast copy, not it, is what dense keeps)
    x = dense if x.storage == first.storage else sim.rebind(x, dense)
    x = sim.rebind(x, activation(x))
    x = sim.rebind(x, sim.dropout(x, drop))
    return [sim.end_scope(mark, sim.rebind(x, sim.linear("classifier.out_proj", x)))]


def step_qa(sim: Sim, seq: T) -> list[T]:
    """``qa_outputs`` then ``split(1, -1)``, ``squeeze(-1).contiguous()``: two [B, L] outputs."""
    return sim.split_columns(sim.linear("qa_outputs", seq))


def qa_needs_two_labels(inv: Inventory) -> None:
    """``start_logits, end_logits = logits.split(1, dim=-1)`` needs exactly two labels."""
    if inv.arch.task == Task.QUESTION_ANSWERING and inv.config.get("num_labels") != 2:
        raise CalcError("labels_fixed", fields=("num_labels",), architecture=inv.architecture, required=2, value=inv.config.get("num_labels"))


def absolute_positions(offset: int = 0) -> Callable[[Mapping[str, Any]], int]:
    """The longest input a learned position table takes (RoBERTa's positions start after the padding row)."""

    def longest(c: Mapping[str, Any]) -> int:
        return c["max_position_embeddings"] - offset

    return longest


def step_check(inv: Inventory) -> None:
    """Classes whose step is not the issue's: multiple choice wants [B, choices, L] inputs; QA needs two labels."""
    if inv.arch.task == Task.MULTIPLE_CHOICE:
        raise CalcError("costs_architecture", architecture=inv.architecture)
    qa_needs_two_labels(inv)


COSTS = CostModel(step_program, absolute_positions(), check=step_check, keys=BERT_KEYS, buffers=position_buffers,
                  autocast=True, sdpa=True, reentrant=True)


def bert_config(vocab: int, hidden: int = 768, layers: int = 12, heads: int = 12, inter: int | None = None) -> dict[str, Any]:
    """A published BERT config.json's size-relevant keys."""
    return {
        "model_type": "bert",
        "vocab_size": vocab,
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "intermediate_size": inter if inter is not None else 4 * hidden,
        "max_position_embeddings": 512,
        "type_vocab_size": 2,
    }


PRESETS = (
    Preset("bert-base-uncased", bert_config(30522), "BertForMaskedLM"),
    Preset("bert-base-cased", bert_config(28996), "BertForMaskedLM"),
    Preset("bert-large-uncased", bert_config(30522, 1024, 24, 16), "BertForMaskedLM"),
    Preset("bert-large-cased", bert_config(28996, 1024, 24, 16), "BertForMaskedLM"),
    Preset("bert-base-chinese", bert_config(21128), "BertForMaskedLM"),
    Preset("bert-base-multilingual-cased", bert_config(119547), "BertForMaskedLM"),
    Preset("bert-base-multilingual-uncased", bert_config(105879), "BertForMaskedLM"),
    # HFL's Chinese checkpoints: BERT's architecture and bert-base-chinese's vocabulary.
    # "RoBERTa" and "MacBERT" name how they were pre-trained, not what they are built of.
    Preset("hfl/chinese-roberta-wwm-ext", bert_config(21128), "BertForMaskedLM"),
    Preset("hfl/chinese-roberta-wwm-ext-large", bert_config(21128, 1024, 24, 16), "BertForMaskedLM"),
    Preset("hfl/chinese-macbert-base", bert_config(21128), "BertForMaskedLM"),
    Preset("hfl/chinese-macbert-large", bert_config(21128, 1024, 24, 16), "BertForMaskedLM"),
    Preset("hfl/chinese-bert-wwm-ext", bert_config(21128), "BertForMaskedLM"),
    Preset("hfl/rbt3", bert_config(21128, 768, 3, 12), "BertForMaskedLM"),
    Preset("google/bert_uncased_L-2_H-128_A-2", bert_config(30522, 128, 2, 2), "BertModel"),
    Preset("google/bert_uncased_L-4_H-256_A-4", bert_config(30522, 256, 4, 4), "BertModel"),
    Preset("google/bert_uncased_L-4_H-512_A-8", bert_config(30522, 512, 4, 8), "BertModel"),
    Preset("google/bert_uncased_L-8_H-512_A-8", bert_config(30522, 512, 8, 8), "BertModel"),
)


FAMILY = Family(
    peft_targets=("query", "value"),
    model_type="bert",
    base="BertModel",
    fields=BERT_FIELDS,
    backbone=backbone,
    architectures=task_classes("Bert", "bert.", BERT_TASKS),
    title={"en": "BERT", "zh": "BERT"},
    formula=formula,
    presets=PRESETS,
    sample=heads_divide(),
    rank=10,
    default_attention="sdpa",
    ignored_keys=(POSITION_TYPE, CROSS_ATTENTION),
    costs=COSTS,
)
