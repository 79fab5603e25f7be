"""RoBERTa (``modeling_roberta.py``): BERT's encoder, its own embedding order and heads.

In transformers 5 ``RobertaEmbeddings`` registers ``position_embeddings``
after the LayerNorm, so it comes last in the ``state_dict``.
"""
from __future__ import annotations

from typing import Any

from ..costs import BERT_KEYS, CostModel, Sim, T, position_buffers
from ..model import Inventory, TensorList
from . import bert
from .base import Family, Preset, with_defaults, Task
from .common import BERT_FIELDS, heads_divide
from .common import POSITION_TYPE, CROSS_ATTENTION

FIELDS = with_defaults(BERT_FIELDS, vocab_size=50265)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    h = c["hidden_size"]
    e = prefix + "embeddings."
    t.embedding(e + "word_embeddings", c["vocab_size"], h, "embeddings")
    t.embedding(e + "token_type_embeddings", c["type_vocab_size"], h, "embeddings")
    t.layer_norm(e + "LayerNorm", h, group="embeddings")
    t.embedding(e + "position_embeddings", c["max_position_embeddings"], h, "embeddings")
    bert.encoder(t, c, prefix)
    if with_pooler:
        bert.pooler(t, c, prefix)


def lm_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    h, v = c["hidden_size"], c["vocab_size"]
    t.add("lm_head.bias", (v,), "head")
    t.linear("lm_head.dense", h, h, "head")
    t.layer_norm("lm_head.layer_norm", h, group="head")
    bert.tied_decoder(
        t, "lm_head.decoder", v, h, prefix + "embeddings.word_embeddings.weight", "lm_head.bias", c["tie_word_embeddings"]
    )


def classification_head(t: TensorList, c: dict[str, Any], prefix: str) -> None:
    h = c["hidden_size"]
    t.linear("classifier.dense", h, h, "head")
    t.linear("classifier.out_proj", c["num_labels"], h, "head")


def step_program(sim: Sim, inv: Inventory, b: int, n: int) -> list[T]:
    """RoBERTa's classes (XLM-R's and CamemBERT's too): BERT's encoder, positions computed from the ids."""
    prefix = bert.step_prefix(inv)
    if bert.step_task(inv) in LIFETIMES and not inv.config.get("is_decoder"):  # no causal mask: every op is modelled
        sim.exact_lifetimes()
        sim.exact_forward()  # every name's release declared (bert.step_backbone, the heads below)
        sim.exact_autocast()  # and under autocast (each Linear's bf16 copies: costs.lifetime)
    seq, pooled = bert.step_backbone(sim, inv, prefix, b, n, positions_from_ids=True)
    return step_heads(sim, inv, seq, pooled)


def lm_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``RobertaLMHead``: dense, GELU (whatever the config says), LayerNorm, the decoder (:func:`bert.step_mlm`)."""
    return [bert.step_mlm(sim, "lm_head", seq)]


def classification_step(sim: Sim, seq: T, pooled: T | None, dropout_key: str) -> list[T]:
    """``RobertaClassificationHead`` on the first token, not the pooler: dense, tanh (:func:`bert.step_pair_head`)."""
    return bert.step_pair_head(sim, seq, sim.drops(dropout_key), sim.keep_output)


def step_heads(sim: Sim, inv: Inventory, seq: T, pooled: T | None, dropout_key: str = "classifier_dropout") -> list[T]:
    """RoBERTa's task heads on the encoder's output (:data:`ROBERTA_HEADS`; RoBERTa-PreLayerNorm's and I-BERT's
    classes run them too); ``dropout_key``: the heads' dropout (I-BERT's is ``hidden_dropout_prob``)."""
    return bert.run_head(ROBERTA_HEADS, sim, inv, seq, pooled, dropout_key)


#: The classes whose every operation the lifetime simulator models (:mod:`calculator.costs.lifetime`).
LIFETIMES = ("", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification", "ForCausalLM",
             "ForQuestionAnswering")

#: Positions start after the padding row (``padding_idx + 1``): a table of P rows takes P - 2 tokens.
COSTS = CostModel(step_program, bert.absolute_positions(offset=2), check=bert.step_check, keys=BERT_KEYS, buffers=position_buffers,
                  autocast=True, sdpa=True, reentrant=True)


#: RoBERTa's task classes: BERT's, but the LM head and the classification head are RoBERTa's own and the
#: sequence classifier reads the first token without the pooler (RoBERTa-PreLayerNorm's the same).
ROBERTA_HEADS: dict[str, bert.Head] = {
    **bert.BERT_HEADS,
    Task.MASKED_LM: bert.Head(False, lm_head, ties_embeddings=True, step=lm_step),
    Task.CAUSAL_LM: bert.Head(False, lm_head, ties_embeddings=True, step=lm_step),
    Task.SEQUENCE_CLASSIFICATION: bert.Head(False, classification_head, uses_num_labels=True, step=classification_step),
}
#: RoBERTa's seven classes in transformers' order.
ROBERTA_TASKS = (Task.MODEL, Task.MASKED_LM, Task.CAUSAL_LM, Task.SEQUENCE_CLASSIFICATION, Task.MULTIPLE_CHOICE,
                 Task.TOKEN_CLASSIFICATION, Task.QUESTION_ANSWERING)


def roberta_config(hidden: int, layers: int, heads: int, vocab: int = 50265, model_type: str = "roberta") -> dict[str, Any]:
    """A published RoBERTa-shaped config.json's size-relevant keys (514 positions: 512 + the padding offset)."""
    return {
        "model_type": model_type,
        "vocab_size": vocab,
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "intermediate_size": 4 * hidden,
        "max_position_embeddings": 514,
        "type_vocab_size": 1,
    }


FAMILY = Family(
    peft_targets=("query", "value"),
    model_type="roberta",
    base="RobertaModel",
    fields=FIELDS,
    backbone=backbone,
    pad_token_id=1,
    positions_padded=True,
    architectures=bert.task_classes("Roberta", "roberta.", ROBERTA_TASKS, ROBERTA_HEADS),
    title={"en": "RoBERTa", "zh": "RoBERTa"},
    formula=bert.formula,
    presets=(
        Preset("roberta-base", roberta_config(768, 12, 12), "RobertaForMaskedLM"),
        Preset("roberta-large", roberta_config(1024, 24, 16), "RobertaForMaskedLM"),
    ),
    sample=heads_divide(),
    rank=20,
    default_attention="sdpa",
    ignored_keys=(POSITION_TYPE, CROSS_ATTENTION),
    costs=COSTS,
)
