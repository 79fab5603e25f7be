"""Record what the real keras-bert builds, for ``tests/crosscheck/test_keras_bert_reference.py``.

It writes ``tests/crosscheck/reference/keras_bert.json``.

Run this in a *separate* virtual environment that has TensorFlow; the main
project environment never imports TensorFlow. The recorded file is the output
of the real library; nothing in ``calculator`` is imported here.

    python3 -m venv /tmp/kvenv
    /tmp/kvenv/bin/pip install tensorflow-cpu==2.21.0 tf-keras==2.21.0 keras-bert==0.89.0
    /tmp/kvenv/bin/python scripts/regen_keras_bert.py

(about 1 minute and 2.2 GB for the install, about 10 s for the run, on CPU).

For every case it writes what ``model.summary()`` shows (layer name, class,
parameter count, trainable flag, in summary order), every weight
(``model.weights`` order: name, shape, whether it is in
``model.trainable_weights``) and the three totals.

``training=False``: keras-bert then returns ``(inputs, output)`` instead of a
model; like keras-bert's own checkpoint loader we wrap them in
``keras.models.Model(inputs, output)``.

A list of layer-name prefixes for ``trainable``: keras-bert 0.89 passes that
list straight to ``LayerNormalization(trainable=...)`` for ``Embedding-Norm``,
which every Keras since 2.7 rejects with a TypeError (older Keras stored it and
the loop at the end of ``get_model`` overwrote it with a bool). For those cases
we record the TypeError, then build again with that one constructor argument
turned into a bool, which restores the pre-2.7 behaviour; everything else,
including keras-bert's prefix rule, is the library's own code. Those cases
carry ``"shim": true``.
"""
from __future__ import annotations

import json
import os
import re
import platform
import sys
from pathlib import Path

os.environ.setdefault("TF_KERAS", "1")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

OUT = Path(__file__).resolve().parents[1] / "tests" / "crosscheck" / "reference" / "keras_bert.json"

FAMOUS = dict(
    token_num=30000, head_num=12, transformer_num=12, embed_dim=768,
    feed_forward_dim=3072, seq_len=500, pos_num=512, dropout_rate=0.05,
)
SMALL = dict(
    token_num=100, head_num=2, transformer_num=2, embed_dim=16,
    feed_forward_dim=32, seq_len=20, pos_num=24, dropout_rate=0.0,
)

CASES = [
    ("famous", FAMOUS),
    ("famous_training_false", dict(FAMOUS, training=False)),
    ("famous_trainable_false", dict(FAMOUS, trainable=False)),
    ("famous_trainable_prefixes", dict(FAMOUS, trainable=["Encoder-12", "MLM", "NSP"])),
    ("famous_training_false_trainable_true", dict(FAMOUS, training=False, trainable=True)),
    ("get_model_defaults", dict(token_num=30000)),
    ("small_no_dropout", SMALL),
    ("small_training_false_prefixes", dict(SMALL, training=False, trainable=["Encoder-2"])),
    ("small_empty_prefix_list", dict(SMALL, trainable=[])),
    ("chinese_vocab_three_layers", dict(
        token_num=21128, head_num=4, transformer_num=3, embed_dim=256,
        feed_forward_dim=1024, seq_len=None, pos_num=128, dropout_rate=0.1,
    )),
    ("no_encoder_layers", dict(SMALL, transformer_num=0, dropout_rate=0.2)),
    ("one_layer_one_head", dict(
        token_num=10, head_num=1, transformer_num=1, embed_dim=8,
        feed_forward_dim=8, seq_len=4, pos_num=4, dropout_rate=0.5,
    )),
]


def build(kwargs: dict):
    from tensorflow import keras
    from keras_bert import get_model

    result = get_model(**kwargs)
    if isinstance(result, tuple):  # training=False
        inputs, output = result
        return keras.models.Model(inputs=inputs, outputs=output)
    return result


def build_with_shim(kwargs: dict):
    """Pre-Keras-2.7 behaviour for a prefix list: the constructor argument becomes a bool."""
    import keras_bert.bert as kb

    original = kb.LayerNormalization

    def layer_normalization(*args, trainable=True, **kw):
        return original(*args, trainable=bool(trainable), **kw)

    kb.LayerNormalization = layer_normalization
    try:
        return build(kwargs)
    finally:
        kb.LayerNormalization = original


def describe(model) -> dict:
    import numpy as np

    trainable_ids = {id(w) for w in model.trainable_weights}

    def count(weights) -> int:
        seen, n = set(), 0
        for w in weights:
            if id(w) not in seen:
                seen.add(id(w))
                n += int(np.prod(w.shape))
        return n

    return {
        "layers": [
            {"name": layer.name, "class": type(layer).__name__, "count": int(layer.count_params()),
             "trainable": bool(layer.trainable)}
            for layer in model.layers
        ],
        "weights": [
            {"name": w.name, "shape": [int(d) for d in w.shape], "trainable": id(w) in trainable_ids}
            for w in model.weights
        ],
        "total": int(model.count_params()),
        "trainable": count(model.trainable_weights),
        "non_trainable": count(model.non_trainable_weights),
    }


def dumps(data: dict) -> str:
    """JSON with one layer or weight per line: small, and readable in a diff."""
    text = json.dumps(data, indent=1)
    # Collapse every innermost object/list (no nested brackets inside) onto one line.
    pattern = re.compile(r"[\[{]\n\s*([^\[\]{}]*?)\n\s*[\]}]")

    def one_line(m: "re.Match[str]") -> str:
        inner = ", ".join(part.strip().rstrip(",") for part in m.group(1).split("\n"))
        return m.group(0)[0] + inner + m.group(0)[-1]

    previous = None
    while previous != text:
        previous, text = text, pattern.sub(one_line, text)
    return text + "\n"


def main() -> None:
    import keras_bert
    import numpy
    import tensorflow as tf
    import tf_keras
    from tensorflow import keras

    from importlib.metadata import version

    cases = []
    for case_id, kwargs in CASES:
        keras.backend.clear_session()
        entry = {"id": case_id, "kwargs": kwargs, "shim": False, "error_without_shim": None}
        try:
            model = build(kwargs)
        except TypeError as exc:
            entry["shim"] = True
            entry["error_without_shim"] = f"{type(exc).__name__}: {exc}"
            keras.backend.clear_session()
            model = build_with_shim(kwargs)
        entry.update(describe(model))
        cases.append(entry)
        print(f"{case_id}: total {entry['total']:,}, trainable {entry['trainable']:,}", file=sys.stderr)

    data = {
        "generated_by": "scripts/regen_keras_bert.py",
        "versions": {
            "python": platform.python_version(),
            "keras-bert": version("keras-bert"),
            "keras-transformer": version("keras-transformer"),
            "keras-multi-head": version("keras-multi-head"),
            "keras-layer-normalization": version("keras-layer-normalization"),
            "keras-position-wise-feed-forward": version("keras-position-wise-feed-forward"),
            "keras-pos-embd": version("keras-pos-embd"),
            "keras-embed-sim": version("keras-embed-sim"),
            "keras-self-attention": version("keras-self-attention"),
            "tensorflow": tf.__version__,
            "tf-keras": tf_keras.__version__,
            "numpy": numpy.__version__,
        },
        "environment": {"TF_KERAS": os.environ["TF_KERAS"], "TF_USE_LEGACY_KERAS": os.environ["TF_USE_LEGACY_KERAS"]},
        "cases": cases,
    }
    assert keras_bert is not None
    OUT.write_text(dumps(data), encoding="utf-8")
    print(f"wrote {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
