"""data2vec-text (``modeling_data2vec_text.py``): RoBERTa under another name, with BERT's config defaults.

transformers 5.23 generates it from ``modular_data2vec_text.py``, which declares
every class as its RoBERTa counterpart (``Data2VecTextModel(RobertaModel)``), so the
tensors are RoBERTa's, in RoBERTa's order. What differs:

* the backbone attribute is ``data2vec_text`` (``data2vec_text.embeddings...``);
* ``Data2VecTextConfig`` keeps BERT's defaults (vocabulary 30,522, 512 positions,
  2 token types) with ``pad_token_id`` 1, the padding row of the word and position
  tables; the published checkpoint sets RoBERTa-base's sizes;
* unlike XLM-R, each task class registers its backbone first, as RoBERTa does.

There is no NSP or pre-training head: the classes are RoBERTa's seven.
"""
from __future__ import annotations

from dataclasses import replace

from . import roberta
from .base import Architecture, Preset
from .common import BERT_FIELDS


def architectures() -> tuple[Architecture, ...]:
    """RoBERTa's classes renamed ``Roberta`` → ``Data2VecText``, backbone under ``data2vec_text.``."""
    return tuple(
        replace(
            arch,
            name=arch.name.replace("Roberta", "Data2VecText", 1),
            prefix="data2vec_text." if arch.prefix else "",
        )
        for arch in roberta.FAMILY.architectures
    )


FAMILY = roberta.FAMILY.derive(
    model_type="data2vec-text",
    base="Data2VecTextModel",
    # Data2VecTextConfig declares BERT's defaults, not RobertaConfig's 50265.
    fields=BERT_FIELDS,
    architectures=architectures(),
    title={"en": "data2vec-text", "zh": "data2vec-text"},
    # RoBERTa-base's layout, converted from fairseq: the vocabulary (50,265) is the one
    # transformers' own integration test of this checkpoint expects; positions 514 and
    # one token type as in every fairseq RoBERTa conversion. Class: the hub lists the
    # checkpoint for feature extraction (Data2VecTextModel).
    presets=(
        Preset(
            "facebook/data2vec-text-base",
            roberta.roberta_config(768, 12, 12, model_type="data2vec-text"),
            "Data2VecTextModel",
        ),
    ),
    rank=26,
    peft_targets=(),  # peft 0.21.2 names no default targets for data2vec-text
)
