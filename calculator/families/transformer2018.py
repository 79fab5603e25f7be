"""The original encoder-decoder Transformer as jadore801120/attention-is-all-you-need-pytorch built it in 2018.

That repository's ``transformer/Models.py`` (``Transformer(n_src_vocab,
n_tgt_vocab, len_max_seq, ...)``) is the model behind the one-layer printout
people paste into "how are BERT's parameters counted?" threads (10,152,448).
Names and shapes follow its ``state_dict``:

* each side has a word embedding and a *sinusoid* position table with
  ``len_max_seq + 1`` rows (row 0 is padding), created with
  ``nn.Embedding.from_pretrained(..., freeze=True)``: a parameter, counted by
  ``model.parameters()``, but not trainable;
* ``MultiHeadAttention`` holds ``w_qs``/``w_ks`` ``[n_head·d_k, d_model]``,
  ``w_vs`` ``[n_head·d_v, d_model]`` (all with biases), its own ``layer_norm``
  and the output projection ``fc`` ``[d_model, n_head·d_v]``, in that order;
* ``PositionwiseFeedForward`` uses kernel-size-1 ``Conv1d`` layers, so its
  weights are 3-D: ``w_1`` ``[d_inner, d_model, 1]``, ``w_2`` ``[d_model, d_inner, 1]``;
* a decoder layer has ``slf_attn``, ``enc_attn`` and ``pos_ffn``;
* ``tgt_word_prj`` ``[n_tgt_vocab, d_model]`` has no bias.

Sharing: ``tgt_emb_prj_weight_sharing`` makes ``tgt_word_prj.weight`` the
decoder's embedding; ``emb_src_tgt_weight_sharing`` then makes the encoder's
embedding that same Parameter (the vocabularies must be equal). ``tied_to``
names the first ``state_dict`` entry holding the shared storage, which is the
encoder's embedding whenever the source/target flag is on.

Encoder blocks get ``layer`` 0 … n_layers − 1 and decoder blocks n_layers …
2·n_layers − 1, so per-layer views list every block once.

``n_src_vocab``, ``n_tgt_vocab`` and ``len_max_seq`` have no defaults in the
constructor; ours (5395, 5395, 32) are the widely quoted one-layer example's.
The other defaults are the constructor's; ``dropout`` changes no tensor and is
ignored.
"""
from __future__ import annotations

from typing import Any, Mapping

from ..config import MAX_LAYERS, Field
from ..errors import CalcError
from ..i18n import label
from ..model import KerasLayer, Tensor, TensorList
from .base import Architecture, Family, Task
from .common import L

MODEL_TYPE = "transformer"
ARCHITECTURE = "Transformer"

FIELDS = (
    Field("n_src_vocab", 5395, label=L("Source vocabulary", "源端词表大小")),
    Field("n_tgt_vocab", 5395, label=L("Target vocabulary", "目标端词表大小")),
    Field("len_max_seq", 32, label=L("Longest sequence", "最大序列长度")),
    Field("d_word_vec", 512, label=L("Word vector size", "词向量维度")),
    Field("d_model", 512, label=L("Model width", "模型维度")),
    Field("d_inner", 2048, label=L("Feed-forward inner size", "前馈网络中间层维度")),
    Field("n_layers", 6, minimum=0, maximum=MAX_LAYERS, label=L("Layers, encoder and decoder each (L)", "编码器、解码器各自的层数（L）")),
    Field("n_head", 8, label=L("Attention heads", "注意力头数")),
    Field("d_k", 64, label=L("Key/query size per head", "每个头的 key/query 维度")),
    Field("d_v", 64, label=L("Value size per head", "每个头的 value 维度")),
    Field(
        "tgt_emb_prj_weight_sharing", True, kind="bool",
        label=L("Share the output projection with the target embedding", "输出投影与目标端词嵌入共享权重"),
    ),
    Field(
        "emb_src_tgt_weight_sharing", True, kind="bool",
        label=L("Share source and target embeddings", "源端与目标端词嵌入共享权重"),
    ),
)


def attention(t: TensorList, p: str, c: dict[str, Any], layer: int, stack: str) -> None:
    """``SubLayers.MultiHeadAttention``: w_qs, w_ks, w_vs, layer_norm, fc (registration order)."""
    d, h = c["d_model"], c["n_head"]
    t.linear(p + "w_qs", h * c["d_k"], d, "attention_qkv", layer, stack=stack)
    t.linear(p + "w_ks", h * c["d_k"], d, "attention_qkv", layer, stack=stack)
    t.linear(p + "w_vs", h * c["d_v"], d, "attention_qkv", layer, stack=stack)
    t.layer_norm(p + "layer_norm", d, layer=layer, stack=stack)
    t.linear(p + "fc", d, h * c["d_v"], "attention_output", layer, stack=stack)


def feed_forward(t: TensorList, p: str, c: dict[str, Any], layer: int, stack: str) -> None:
    """``SubLayers.PositionwiseFeedForward``: two Conv1d(kernel_size=1) and a LayerNorm."""
    d, inner = c["d_model"], c["d_inner"]
    t.add(p + "w_1.weight", (inner, d, 1), "feed_forward", layer, stack=stack)
    t.add(p + "w_1.bias", (inner,), "feed_forward", layer, stack=stack)
    t.add(p + "w_2.weight", (d, inner, 1), "feed_forward", layer, stack=stack)
    t.add(p + "w_2.bias", (d,), "feed_forward", layer, stack=stack)
    t.layer_norm(p + "layer_norm", d, layer=layer, stack=stack)


def layer_row(n: int, config: Mapping[str, Any], lang: str) -> str:
    """Encoder blocks are numbered 0 … n_layers − 1, decoder blocks after them."""
    encoder_layers = config["n_layers"]
    if n < encoder_layers:
        return label("encoder_layer_n", lang, n=n)
    return label("decoder_layer_n", lang, n=n - encoder_layers)


def build_tensors(c: dict[str, Any], architecture: str = ARCHITECTURE) -> tuple[tuple[Tensor, ...], tuple[KerasLayer, ...]]:
    """The ``custom`` builder: every ``state_dict`` entry of ``Transformer(**c)``."""
    if c["d_word_vec"] != c["d_model"]:
        # Models.py asserts this ("to facilitate the residual connections").
        raise CalcError("bad_value", key="d_word_vec", value=f"{c['d_word_vec']} (must equal d_model = {c['d_model']})")
    share_prj = c["tgt_emb_prj_weight_sharing"]
    share_src_tgt = c["emb_src_tgt_weight_sharing"]
    if share_src_tgt and c["n_src_vocab"] != c["n_tgt_vocab"]:
        raise CalcError("vocab_mismatch", fields=("n_tgt_vocab", "n_src_vocab"), src=c["n_src_vocab"], tgt=c["n_tgt_vocab"])
    n, w, positions = c["n_layers"], c["d_word_vec"], c["len_max_seq"] + 1
    src_emb, tgt_emb = "encoder.src_word_emb.weight", "decoder.tgt_word_emb.weight"

    t = TensorList()
    t.embedding("encoder.src_word_emb", c["n_src_vocab"], w)
    t.embedding("encoder.position_enc", positions, w, trainable=False)
    for i in range(n):
        p = f"encoder.layer_stack.{i}."
        attention(t, p + "slf_attn.", c, i, "encoder")
        feed_forward(t, p + "pos_ffn.", c, i, "encoder")
    t.embedding("decoder.tgt_word_emb", c["n_tgt_vocab"], w, shares=src_emb if share_src_tgt else None)
    t.embedding("decoder.position_enc", positions, w, trainable=False)
    for i in range(n):
        p = f"decoder.layer_stack.{i}."
        attention(t, p + "slf_attn.", c, n + i, "decoder")
        attention(t, p + "enc_attn.", c, n + i, "decoder")
        feed_forward(t, p + "pos_ffn.", c, n + i, "decoder")
    # The decoder embedding's storage first appears under the encoder's name when that is shared too.
    owner = src_emb if share_src_tgt else tgt_emb
    t.add("tgt_word_prj.weight", (c["n_tgt_vocab"], c["d_model"]), "head", shares=owner if share_prj else None)
    return t.tensors(), ()


FAMILY = Family(
    model_type=MODEL_TYPE,
    base=ARCHITECTURE,
    fields=FIELDS,
    architectures=(Architecture(name=ARCHITECTURE, task=Task.MODEL, prefix="", pooler=False),),
    builder=build_tensors,
    pad_token_id=None,
    title={"en": "Transformer (2018, PyTorch)", "zh": "Transformer（2018 PyTorch 实现）"},
    config_json=False,
    legend="fields_legend_transformer",
    layer_row=layer_row,
    heads_check=None,  # d_k and d_v are free: no divisibility to check
    per_layer_title="per_block_title",
    transformers=False,
    costs_refusal="costs_seq2seq",  # an encoder-decoder fed four tensors: not the step defined here
    rank=95,
)
