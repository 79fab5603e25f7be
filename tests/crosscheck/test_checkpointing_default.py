"""The DeBERTa checkpointing refusal's claim (issue 35, reader H3), shown in PyTorch with transformers 5.23.

With ``use_reentrant=True`` (the calculator's ``--grad-checkpointing reentrant``, ``ckpt=reentrant``) DeBERTa-v2
fails ("Trying to backward through the graph a second time"); the refusal says that only that kind fails and that
transformers' default, which the calculator's checkpointing now is, trains. Here, on a tiny
DebertaV2ForSequenceClassification: ``gradient_checkpointing_enable()`` without arguments trains (one backward,
every trainable parameter gets a gradient), and the reentrant kind fails as the refusal says.
"""
from __future__ import annotations

import pytest


def _tiny():
    import torch
    import transformers

    torch.manual_seed(0)
    config = transformers.DebertaV2Config(vocab_size=64, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                                          intermediate_size=32, max_position_embeddings=32, relative_attention=True,
                                          position_buckets=8, pos_att_type=["p2c", "c2p"], norm_rel_ebd="layer_norm",
                                          share_att_key=True, position_biased_input=False, num_labels=2)
    model = transformers.DebertaV2ForSequenceClassification(config)
    model.train()
    return model, torch.randint(0, 64, (2, 12))


def test_transformers_default_checkpointing_trains_deberta():
    model, ids = _tiny()
    model.gradient_checkpointing_enable()
    model(input_ids=ids).logits.float().sum().backward()
    assert all(p.grad is not None for p in model.parameters() if p.requires_grad)


def test_reentrant_checkpointing_fails_as_the_refusal_says():
    model, ids = _tiny()
    model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": True})
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        model(input_ids=ids).logits.float().sum().backward()
