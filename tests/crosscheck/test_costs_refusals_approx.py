"""Why MRA's training step is refused (issue 34): on a CPU, transformers 5.23 computes no MRA attention at all.

``mra2_attention`` returns ``torch.zeros_like(query)`` when the ``kernels-community/mra`` CUDA kernels are not
loaded, so every layer's attention output is zeros whatever the input: the step PyTorch runs on a CPU is not
MRA's, and the calculator refuses to cost it with a coded error (en and zh) instead of measuring it.
"""
from __future__ import annotations

from calculator.build import build as engine_build
from calculator.costs import cost_model
from calculator.errors import CalcError

SMALL = {"model_type": "mra", "vocab_size": 50, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2,
         "intermediate_size": 16, "max_position_embeddings": 64}


def test_mra_attention_is_zeros_on_cpu_and_the_step_is_refused() -> None:
    import torch
    import transformers

    config = transformers.MraConfig(**{k: v for k, v in SMALL.items() if k != "model_type"})
    model = transformers.MraModel(config).train()
    contexts = []
    for layer in model.encoder.layer:
        layer.attention.self.register_forward_hook(lambda module, args, out: contexts.append(out[0]))
    ids = torch.randint(3, 50, (2, 64))
    model(input_ids=ids).last_hidden_state.sum().backward()
    assert len(contexts) == 2 and all(bool((c == 0).all()) for c in contexts)

    inv = engine_build(SMALL)
    try:
        cost_model(inv)
    except CalcError as exc:
        assert exc.code == "costs_cuda_kernel"
        assert "CUDA" in exc.message("en") and "CUDA" in exc.message("zh") and exc.message("en") != exc.message("zh")
    else:
        raise AssertionError("MRA's training step was costed")
