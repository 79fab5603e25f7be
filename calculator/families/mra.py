"""MRA (``modeling_mra.py``, 2023): BERT's layer with multi-resolution (block-sparse) approximate attention.

The tensors are Nyströmformer's without the convolution (:mod:`.nystromformer`): BERT's layer,
``max_position_embeddings + 2`` position rows, no pooler, RoBERTa's sequence-classification head,
DistilBERT's multiple-choice head, two QA outputs whatever ``num_labels`` says. One thing more:
``MraEmbeddings`` registers ``position_ids`` [1, P] as a *persistent* buffer (int64, ``arange(P) + 2``), so
it is in ``state_dict`` (and every saved checkpoint), first of the embeddings, though not a parameter.

``block_per_row``, ``approx_mode`` and the two ``initial_prior_*`` keys shape no tensor. The attention runs
only through the ``kernels-community/mra`` CUDA kernels: without them transformers' ``mra2_attention``
returns zeros (``torch.zeros_like(query)``), so a CPU step is not MRA's and is not costed here.
"""
from __future__ import annotations

from typing import Any

from ..config import Field
from ..model import TensorList
from . import bert, roberta
from .base import Architecture, Family, Preset, with_defaults, Task
from .common import BERT_FIELDS, L, heads_divide
from .nystromformer import backbone_with, formula_with, multiple_choice_head

FIELDS = with_defaults(BERT_FIELDS, vocab_size=50265, type_vocab_size=1) + (
    Field("block_per_row", 4, label=L("Blocks kept per row (block_per_row)", "每行保留的块数（block_per_row）")),
    Field("approx_mode", "full", kind="choice", choices=("full", "sparse"),
          label=L("Approximation (approx_mode)", "近似方式（approx_mode）")),
)

_layers = backbone_with(None)


def backbone(t: TensorList, c: dict[str, Any], prefix: str, with_pooler: bool) -> None:
    """The persistent ``position_ids`` buffer (the embeddings' own, so first), then Nyströmformer's tensors
    without the convolution."""
    t.buffer(prefix + "embeddings.position_ids", (1, c["max_position_embeddings"]), "embeddings")
    _layers(t, c, prefix, with_pooler)


def mra_config() -> dict[str, Any]:
    """uw-madison/mra-base-512-4's config.json, size-relevant keys (MraConfig's defaults are documented as this
    checkpoint's: https://huggingface.co/uw-madison/mra-base-512-4/blob/main/config.json)."""
    return {
        "model_type": "mra", "vocab_size": 50265, "hidden_size": 768, "num_hidden_layers": 12,
        "num_attention_heads": 12, "intermediate_size": 3072, "max_position_embeddings": 512,
        "type_vocab_size": 1, "block_per_row": 4, "approx_mode": "full",
    }


_P = "mra."
FAMILY = Family(
    model_type="mra",
    base="MraModel",
    fields=FIELDS,
    backbone=backbone,
    pad_token_id=1,
    architectures=(
        Architecture(name="MraModel", task=Task.MODEL, prefix="", pooler=False),
        Architecture(name="MraForMaskedLM", task=Task.MASKED_LM, prefix=_P, pooler=False, head=bert.mlm_head, ties_embeddings=True),
        Architecture(name="MraForSequenceClassification", task=Task.SEQUENCE_CLASSIFICATION, prefix=_P, pooler=False,
                     head=roberta.classification_head, uses_num_labels=True),
        Architecture(name="MraForMultipleChoice", task=Task.MULTIPLE_CHOICE, prefix=_P, pooler=False, head=multiple_choice_head),
        Architecture(name="MraForTokenClassification", task=Task.TOKEN_CLASSIFICATION, prefix=_P, pooler=False,
                     head=bert.linear_head("classifier", "num_labels"), uses_num_labels=True),
        # its __init__ sets config.num_labels = 2 first, whatever the config says
        Architecture(name="MraForQuestionAnswering", task=Task.QUESTION_ANSWERING, prefix=_P, pooler=False, head=bert.linear_head("qa_outputs", 2)),
    ),
    title={"en": "MRA", "zh": "MRA"},
    formula=formula_with(None),
    presets=(Preset("uw-madison/mra-base-512-4", mra_config(), "MraForMaskedLM"),),
    sample=heads_divide(),
    rank=85,
    # On CPU the attention is zeros (no kernels): tests/crosscheck/test_costs_refusals_approx.py runs it.
    costs_refusal="costs_cuda_kernel",
)
