"""Nyströmformer (``modeling_nystromformer.py``, 2021): BERT's layer with Nyström-approximated attention.

The tensors are BERT's but for three things:

* each layer's self-attention adds a depthwise ``nn.Conv2d(A, A, (conv_kernel_size, 1), groups=A,
  bias=False)`` over the values (the "skip" convolution): ``A × conv_kernel_size`` weights a layer,
  (the code skips it for a null kernel, which the 5.23 config refuses);
* the position table has ``max_position_embeddings + 2`` rows (positions start at 2);
* there is no pooler; the sequence-classification head is RoBERTa's (dense, out_proj) and the
  multiple-choice head DistilBERT's (pre_classifier, classifier).

``num_landmarks`` and ``segment_means_seq_len`` shape no tensor: they decide the attention's cost
(landmarks are segment means of Q and K, and the pseudo-inverse is iterated six times).
"""
from __future__ import annotations

import random
from typing import Any

from ..config import Field
from ..costs import CostModel, Sim, T, activation_key, dropouts, position_buffers
from ..errors import CalcError
from ..formula import Formula, FormulaLine, head_line, layers_lines
from ..model import Inventory, TensorList
from . import bert, roberta
from .base import Family, Preset, with_defaults, Task
from .common import BERT_FIELDS, L

FIELDS = with_defaults(BERT_FIELDS, vocab_size=30000, max_position_embeddings=510) + (
    # The model code skips the convolution when this is None, but NystromformerConfig 5.23 types it
    # ``int`` and refuses null: so does the calculator.
    Field("conv_kernel_size", 65,
          label=L("Depthwise convolution kernel over the values (conv_kernel_size)",
                  "V 上逐通道卷积的卷积核长度（conv_kernel_size）"), sample=(1, 9)),
    Field("num_landmarks", 64, label=L("Landmarks (num_landmarks)", "地标点数（num_landmarks）")),
    Field("segment_means_seq_len", 64,
          label=L("Sequence length the landmarks assume (segment_means_seq_len)",
                  "计算地标点时假定的序列长度（segment_means_seq_len）")),
)


def backbone_with(kernel_key: str | None) -> Any:
    """The backbone of Nyströmformer (``conv_kernel_size``), YOSO (``conv_window``, null: no convolution) and
    MRA (None: never a convolution)."""

    def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
        """The embeddings (P + 2 positions) and the layers; no pooler in any class."""
        h, heads = c["hidden_size"], c["num_attention_heads"]
        kernel = c[kernel_key] if kernel_key is not None else None
        e = prefix + "embeddings."
        t.embedding(e + "word_embeddings", c["vocab_size"], h, "embeddings")
        t.embedding(e + "position_embeddings", c["max_position_embeddings"] + 2, h, "embeddings")
        t.embedding(e + "token_type_embeddings", c["type_vocab_size"], h, "embeddings")
        t.layer_norm(e + "LayerNorm", h, group="embeddings")
        for i in range(c["num_hidden_layers"]):
            p = f"{prefix}encoder.layer.{i}."
            for proj in ("query", "key", "value"):
                t.linear(p + "attention.self." + proj, h, h, "attention_qkv", i)
            if kernel is not None:  # nn.Conv2d(A, A, (k, 1), groups=A, bias=False): weight [A, 1, k, 1]
                t.add(p + "attention.self.conv.weight", (heads, 1, kernel, 1), "attention_qkv", i)
            t.linear(p + "attention.output.dense", h, h, "attention_output", i)
            t.layer_norm(p + "attention.output.LayerNorm", h, layer=i)
            t.linear(p + "intermediate.dense", c["intermediate_size"], h, "feed_forward", i)
            t.linear(p + "output.dense", h, c["intermediate_size"], "feed_forward", i)
            t.layer_norm(p + "output.LayerNorm", h, layer=i)

    return backbone


backbone = backbone_with("conv_kernel_size")


def multiple_choice_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    """``pre_classifier`` (H → H, ReLU) then ``classifier`` (H → 1)."""
    t.linear("pre_classifier", c["hidden_size"], c["hidden_size"], "head")
    t.linear("classifier", 1, c["hidden_size"], "head")


def formula_with(kernel_key: str | None) -> Any:
    """BERT's layer plus A·k convolution weights (k = 0 without one; no term at all for MRA, ``None``);
    P + 2 position rows; no pooler."""

    def formula(inv: Inventory) -> Formula:
        c = inv.config
        v, p, t, h, n, i, a = (c["vocab_size"], c["max_position_embeddings"], c["type_vocab_size"],
                               c["hidden_size"], c["num_hidden_layers"], c["intermediate_size"],
                               c["num_attention_heads"])
        symbolic, substituted, per = bert.layer_terms(h, i)
        symbols = {"V": v, "P": p, "T": t, "H": h, "I": i, "L": n}
        if kernel_key is not None:
            k = c[kernel_key] or 0
            symbolic, substituted, per = f"{symbolic} + A·k", f"{substituted} + {a}·{k}", per + a * k
            symbols.update(A=a, k=k)
        lines = [
            FormulaLine("embeddings", "(V + P + 2 + T)·H + 2H", f"({v} + {p} + 2 + {t})·{h} + 2·{h}",
                        (v + p + 2 + t) * h + 2 * h),
            *layers_lines(symbolic, substituted, per, n),
        ]
        return Formula(symbols, tuple(lines + head_line(inv)))

    return formula


formula = formula_with("conv_kernel_size")


def sample(rng: random.Random, config: dict[str, Any]) -> None:
    """H a multiple of the heads (HF requires it)."""
    bert_heads = rng.choice([1, 2, 3, 4, 6, 8])
    config["num_attention_heads"] = bert_heads
    config["hidden_size"] = bert_heads * rng.randint(1, 12)


def nystromformer_config() -> dict[str, Any]:
    """uw-madison/nystromformer-512's config.json, size-relevant keys (NystromformerConfig's defaults are
    documented as this checkpoint's: https://huggingface.co/uw-madison/nystromformer-512/blob/main/config.json)."""
    return {
        "model_type": "nystromformer", "vocab_size": 30000, "hidden_size": 768, "num_hidden_layers": 12,
        "num_attention_heads": 12, "intermediate_size": 3072, "max_position_embeddings": 510,
        "type_vocab_size": 2, "num_landmarks": 64, "conv_kernel_size": 65, "segment_means_seq_len": 512,
    }


# --------------------------------------------------------------- training step
#
# NystromformerConfig's defaults: ``hidden_act`` "gelu_new", ``hidden_dropout_prob`` 0.1. Its
# ``attention_probs_dropout_prob`` builds an ``nn.Dropout`` the attention never calls: the step does not read it.


def step_embeddings(sim: Sim, prefix: str, b: int, n: int) -> T:
    """``NystromformerEmbeddings`` (YOSO's too): word + token type (the buffer's slice, expanded) + position (the
    buffer's slice, which starts at 2; ``embeddings += ...``, in place), LayerNorm, dropout, each rebinding
    ``embeddings``. Only ``input_ids`` are kept (for the word table's backward): both other index tensors are
    views of buffers."""
    e = prefix + "embeddings."
    mark = sim.scope()  # the embeddings' forward: its locals die as it returns
    ids, types, positions = sim.ids((b, n)), sim.expand(sim.buffer((1, n)), (b, n)), sim.buffer((1, n))
    words = sim.embedding(e + "word_embeddings", ids, first=True)
    x = sim.add(words, sim.embedding(e + "token_type_embeddings", types))
    x = sim.add_(x, sim.embedding(e + "position_embeddings", positions))
    x = sim.rebind(x, sim.layer_norm(e + "LayerNorm", x))
    return sim.end_scope(mark, sim.rebind(x, sim.dropout(x, sim.drops("hidden_dropout_prob"))))


def landmarks_run(c: dict[str, Any]) -> bool:
    """Whether the attention takes the Nyström path (``num_landmarks != segment_means_seq_len``); equal, it is
    softmax attention over every key."""
    return bool(c["num_landmarks"] != c["segment_means_seq_len"])


def iterative_inv(sim: Sim, kernel: T) -> T:
    """``NystromformerSelfAttention.iterative_inv`` (``init_option`` "original"), six iterations, as autograd
    records it: ``identity = torch.eye(m)`` (float32, named until it returns); ``sum`` over dim -2 (keeps sizes),
    ``max`` of everything (keeps its input and its 0-dim result), ``1 / that`` (``reciprocal``, keeps its result,
    then ``* 1``), times ``kernel``'s transpose (laid out as it; each factor kept for the other's gradient); then per
    iteration ``key_value = kernel @ value`` and, evaluated left to right, ``0.25 * value``, ``13 * identity``,
    ``15 * identity``, ``7 * identity`` (constants), three subtractions (nothing kept) and three products (each
    keeping both factors), every temporary gone once the operation that read it has returned."""
    x, a, m, _ = kernel.shape
    mark = sim.scope()  # iterative_inv
    sim.constant((m, m), 4, "aten.eye")  # identity = torch.eye(m): named until iterative_inv returns
    sums = sim.sum_dim(kernel, -2)
    top = sim.max_all(sums)
    sim.release(sums)
    inverse = sim.reciprocal(top)
    scaled = sim.scalar(inverse)  # reciprocal(t) * 1: Python's 1 / t
    sim.release(top, inverse)
    v = sim.scalar_times(scaled, sim.transpose(kernel, 2, 3))
    sim.release(scaled)
    kv: T | None = None
    for _ in range(6):
        product = sim.bmm(kernel, v)
        if kv is not None:
            sim.release(kv)  # key_value rebound
        kv = product
        quarter = sim.scalar(v)  # 0.25 * value
        c13, c15, c7 = (sim.constant((m, m), 4, "aten.mul") for _ in range(3))
        inner = sim.sub_from(c7, kv)
        sim.release(c7)
        first = sim.bmm(kv, inner)
        sim.release(inner)
        inner = sim.sub_from(c15, first)
        sim.release(c15, first)
        second = sim.bmm(kv, inner)
        sim.release(inner)
        inner = sim.sub_from(c13, second)
        sim.release(c13, second)
        out = sim.bmm(quarter, inner)
        sim.release(quarter, inner, v)  # the expression's temporaries; ``value`` rebound
        v = out
    return sim.end_scope(mark, v)


def step_attention(sim: Sim, inv: Inventory, p: str, x: T) -> T:
    """``NystromformerSelfAttention`` up to the context [B, L, H] (no mask: ``input_ids`` alone give none in eager
    attention; no dropout: the module's is never called).

    Q, K, V are split into heads (views); Q and K are divided by d^(1/4) (new tensors laid out as their
    [B, L, A, d] inputs, so ``matmul``'s reshapes copy them unless B or A is 1; the projections' outputs dropped
    as the names are rebound). With as many landmarks as ``segment_means_seq_len``: softmax(QKᵀ)V. Otherwise the
    landmarks are the means of Q and K over segments of ``segment_means_seq_len // num_landmarks`` positions (a
    view, then ``mean``, which keeps sizes only), and the context is softmax(Q K̃ᵀ) · pinv(softmax(Q̃ K̃ᵀ)) ·
    (softmax(Q̃ Kᵀ) V); ``attention_scores`` and ``attention_probs`` keep their names until it returns. The
    convolution over the values is added in place (keeps nothing); the context is permuted back and made
    contiguous (a copy)."""
    c = inv.config
    b, n, h = x.shape
    heads = c["num_attention_heads"]
    d = h // heads
    s = p + "attention.self."
    mark = sim.scope()  # NystromformerSelfAttention.forward
    q, k, v = project_heads(sim, s, x, heads)
    q = sim.rebind(q, sim.divided(q))  # / sqrt(sqrt(d)), laid out as its input
    k = sim.rebind(k, sim.divided(k))
    if not landmarks_run(c):
        scores = sim.bmm(q, sim.transpose(k, 2, 3))  # attention_scores
        probs = sim.keep_output(scores)
        context = sim.bmm(probs, v)
    else:
        m = c["num_landmarks"]
        segment = c["segment_means_seq_len"] // m
        assert m * segment == n
        q_marks = sim.mean_dim(sim.reshape(q, (b, heads, m, segment, d)), -2)
        k_marks = sim.mean_dim(sim.reshape(k, (b, heads, m, segment, d)), -2)

        def softmax_of(product: T) -> T:
            out = sim.keep_output(product)
            sim.release(product)  # the product, a temporary of the expression
            return out
        kernel_1 = softmax_of(sim.bmm(q, sim.transpose(k_marks, 2, 3)))
        kernel_2 = softmax_of(sim.bmm(q_marks, sim.transpose(k_marks, 2, 3)))
        scores = sim.bmm(q_marks, sim.transpose(k, 2, 3))  # attention_scores
        kernel_3 = sim.keep_output(scores)
        pinv = iterative_inv(sim, kernel_2)
        probs = sim.bmm(kernel_1, pinv)  # attention_probs
        sim.release(pinv)
        context = sim.bmm(probs, sim.bmm(kernel_3, v))
    conv = sim.conv_heads(s + "conv", v) if s + "conv.weight" in sim.shapes else None
    return sim.end_scope(mark, merge_heads(sim, context, conv, (b, n, h)))


def project_heads(sim: Sim, s: str, x: T, heads: int) -> tuple[T, T, T]:
    """Q, K, V of Nyströmformer's and YOSO's attention (written once): ``self.query(x).view(B, L, A, d)
    .transpose(1, 2)``, each a view of its Linear's output."""
    h = x.shape[2]
    d = h // heads
    q, k, v = (sim.heads(sim.linear(s + name, x), heads, d) for name in ("query", "key", "value"))
    return q, k, v


def merge_heads(sim: Sim, context: T, conv: T | None, shape: tuple[int, int, int]) -> T:
    """The end of Nyströmformer's attention: ``context_layer += conv`` when the values' convolution runs
    (in place: the context needs a gradient where the convolution's output does), then ``permute(0, 2, 1, 3)
    .contiguous()`` (a copy) viewed as [B, L, H]."""
    if conv is not None:
        context = sim.add_(context, conv)  # context_layer += self.conv(value_layer): in place, nothing kept
        sim.release(conv)
    out = sim.rebind(context, sim.contiguous(sim.permute(context, (0, 2, 1, 3))))  # context_layer rebound
    return sim.contiguous(sim.reshape(out, shape))


def step_layer(inv: Inventory, prefix: str, i: int, attention: Any = None) -> Any:
    """One ``NystromformerLayer``: BERT's, with the attention above (``hidden_act`` and the hidden dropout);
    YOSO's layer is the same around its own ``attention(sim, inv, p, x)``."""
    p = f"{prefix}encoder.layer.{i}."
    attend = attention if attention is not None else step_attention

    def run(sim: Sim, x: T) -> T:
        hidden = sim.drops("hidden_dropout_prob")
        layer = sim.scope()  # NystromformerLayer.forward: attention_output named until it returns
        attention = sim.scope()  # NystromformerAttention.forward: self_outputs (the context) until it returns
        context = attend(sim, inv, p, x)
        attended = sim.end_scope(attention, bert.self_output(sim, p + "attention.output.", context, x, hidden))
        chunk = sim.scope()  # feed_forward_chunk: intermediate_output until it returns
        inner = sim.linear(p + "intermediate.dense", attended)
        inner = sim.rebind(inner, sim.act("hidden_act", inner))
        out = sim.end_scope(chunk, bert.self_output(sim, p + "output.", inner, attended, hidden))
        return sim.end_scope(layer, out)

    return run


def classification_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``NystromformerClassificationHead``: RoBERTa's classification head with ``ACT2FN[hidden_act]`` (not tanh)
    and the hidden dropout (``dropout_key``); ``x`` rebound by every step."""
    hidden = sim.drops(dropout_key)
    mark = sim.scope()
    x = sim.dropout(sim.select(seq, 1), hidden)  # features[:, 0, :], a view of the named sequence output
    y = sim.linear("classifier.dense", x)
    x = y if x.storage == seq.storage else sim.rebind(x, y)
    x = sim.rebind(x, sim.act("hidden_act", x))
    x = sim.rebind(x, sim.dropout(x, hidden))
    return [sim.end_scope(mark, sim.rebind(x, sim.linear("classifier.out_proj", x)))]


def qa_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``qa_outputs``, then ``logits.split(1, dim=-1)`` and ``squeeze(-1)``: views, no copy (unlike BERT's head,
    Nyströmformer's and YOSO's call no ``.contiguous()``; measured on YOSO: two copies were counted that PyTorch
    never makes, 64 bytes too many at a forward peak that lay at the head)."""
    return sim.split_views(sim.linear("qa_outputs", seq))


#: Nyströmformer's (and YOSO's) classes, by task: each head's tensors and its forward. BERT's MLM head;
#: the classification head above; dropout then ``classifier``; ``qa_outputs`` (its ``__init__`` sets
#: ``config.num_labels = 2`` first, whatever the config says); multiple choice refused by :func:`step_check`.
NYSTROMFORMER_HEADS: dict[str, bert.Head] = {
    Task.MODEL: bert.Head(False, step=bert.model_step),
    Task.MASKED_LM: bert.Head(False, bert.mlm_head, ties_embeddings=True, step=bert.mlm_step),
    Task.SEQUENCE_CLASSIFICATION: bert.Head(False, roberta.classification_head, uses_num_labels=True,
                                            step=classification_step),
    Task.MULTIPLE_CHOICE: bert.Head(False, multiple_choice_head),
    Task.TOKEN_CLASSIFICATION: bert.Head(False, bert.linear_head("classifier", "num_labels"), uses_num_labels=True,
                                         step=bert.token_classifier_step),
    Task.QUESTION_ANSWERING: bert.Head(False, bert.linear_head("qa_outputs", 2), step=qa_step),
}


def step_heads(sim: Sim, inv: Inventory, seq: T) -> list[T]:
    """The task heads of Nyströmformer and YOSO (the same code), as the class's task picks them from
    :data:`NYSTROMFORMER_HEADS`; every dropout in them is the hidden one."""
    return bert.run_head(NYSTROMFORMER_HEADS, sim, inv, seq, None, "hidden_dropout_prob")


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """Nyströmformer's classes (multiple choice refused by :func:`step_check`), every name dropped where
    ``modeling_nystromformer.py`` drops it: ``NystromformerModel.forward`` checks the ids' first and last columns
    for padding (four temporaries), makes ``attention_mask = torch.ones((B, L))`` (float32), runs the embeddings,
    and the bidirectional mask function reads the ones (``.to(bool)``, ``.all()``) and returns None, dropping
    them; the embeddings' output keeps its name until the model returns."""
    prefix = bert.step_prefix(inv)
    c = inv.config
    if c["num_hidden_layers"] and landmarks_run(c):
        if sim.itemsize != 4:  # the pseudo-inverse subtracts from a float32 torch.eye: matmul of bf16 by float32
            raise CalcError("costs_forward_fails", key="dtype", value="bf16")
        m, s = c["num_landmarks"], c["segment_means_seq_len"]
        if m * (s // m) != n:
            raise CalcError("costs_nystrom_length", value=n, landmarks=m, seq_len=s, expected=m * (s // m))
    sim.exact_lifetimes()  # every op modelled (another activation: LiveSim fails, bounds kept)
    sim.exact_forward()  # every name's release declared below
    sim.exact_autocast()  # under bf16 autocast too: the convolution's copies, the pseudo-inverse's promoting subtractions
    model = sim.scope()  # NystromformerModel.forward
    if c.get("pad_token_id", 1) is not None:  # warn_if_padding_and_no_attention_mask
        sim.transients((16, 16 * b, 2 * b, 1), (1, 3, 3, 3), ("aten.lift_fresh", "aten.index", "aten.eq", "aten.any"))
    ones = sim.named_transient(4 * b * n, "aten.ones")
    x = step_embeddings(sim, prefix, b, n)
    sim.transients((b * n, 1), (1, 1), ("aten._to_copy", "aten.all"))
    sim.drop_transient(ones)
    seq = x
    for i in range(c["num_hidden_layers"]):  # the encoder: hidden_states rebound by every layer
        y = sim.layer(step_layer(inv, prefix, i), seq)
        if i:
            sim.rebind(seq, y)
        seq = y
    sim.end_scope(model, seq)
    return step_heads(sim, inv, seq)


def step_check(inv: Inventory) -> None:
    """Multiple choice wants [B, choices, L] inputs; an even convolution kernel gives L + 1 positions, which
    the in-place sum with the context cannot take (transformers' forward fails)."""
    if inv.arch.task == Task.MULTIPLE_CHOICE:
        raise CalcError("costs_architecture", architecture=inv.architecture)
    kernel = inv.config.get("conv_kernel_size")
    if kernel is not None and kernel % 2 == 0 and inv.config["num_hidden_layers"]:
        raise CalcError("costs_forward_fails", key="conv_kernel_size", value=kernel)


COSTS = CostModel(step_program, bert.absolute_positions(), check=step_check,
                  keys=(activation_key("gelu_new"), *dropouts("hidden_dropout_prob")), autocast=True,
                  buffers=position_buffers, reentrant=True)


_P = "nystromformer."
FAMILY = Family(
    model_type="nystromformer",
    base="NystromformerModel",
    fields=FIELDS,
    backbone=backbone,
    pad_token_id=1,
    architectures=bert.task_classes("Nystromformer", _P, (
        Task.MODEL, Task.MASKED_LM, Task.SEQUENCE_CLASSIFICATION, Task.MULTIPLE_CHOICE, Task.TOKEN_CLASSIFICATION,
        Task.QUESTION_ANSWERING), NYSTROMFORMER_HEADS),
    title={"en": "Nyströmformer", "zh": "Nyströmformer"},
    formula=formula,
    presets=(Preset("uw-madison/nystromformer-512", nystromformer_config(), "NystromformerForMaskedLM"),),
    sample=sample,
    rank=82,
    costs=COSTS,
)
