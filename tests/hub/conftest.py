"""Small checkpoints that transformers itself saves, served by the local Hub stand-in (``standin.py``).

Each repo is written once per session by ``save_pretrained`` (or, for what an older transformers or
sentence-transformers wrote, by ``safetensors.torch.save_file`` with the names and dtypes those
libraries use), then served from 127.0.0.1: nothing reaches huggingface.co.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from .standin import Hub, Repo

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

#: A tiny BERT: every size distinct, so a tensor mixed up with another shows.
TINY = dict(vocab_size=99, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=37,
            max_position_embeddings=64, type_vocab_size=2)


def _bert(cls_name: str):
    torch.manual_seed(0)
    cls = getattr(transformers, cls_name)
    return cls(transformers.BertConfig(**TINY))


def make_repos(root: Path) -> dict[str, Repo]:
    from safetensors.torch import load_file, save_file

    repos: dict[str, Repo] = {}

    # 1. One file: a BertForMaskedLM, as save_pretrained writes it (the decoder weight tied, not stored).
    d = root / "tiny-mlm"
    _bert("BertForMaskedLM").save_pretrained(d)
    repos["tiny/bert-mlm"] = Repo(d)

    # 2. Sharded: a BertForPreTraining in shards of at most 20 kB, with model.safetensors.index.json.
    d = root / "tiny-pretraining-sharded"
    _bert("BertForPreTraining").save_pretrained(d, max_shard_size="20KB")
    assert (d / "model.safetensors.index.json").exists()
    repos["tiny/bert-pretraining-sharded"] = Repo(d)

    # 3. An old checkpoint: what transformers < 4.31 wrote for a BertModel: LayerNorm gamma/beta names and the
    #    persistent position_ids buffer (int64) in the file.
    d = root / "tiny-old"
    _bert("BertModel").save_pretrained(d)
    tensors = load_file(str(d / "model.safetensors"))
    old = {k.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias", "LayerNorm.beta"): v
           for k, v in tensors.items()}
    old["embeddings.position_ids"] = torch.arange(TINY["max_position_embeddings"], dtype=torch.int64).unsqueeze(0)
    save_file(old, str(d / "model.safetensors"), metadata={"format": "pt"})
    repos["tiny/bert-old"] = Repo(d)

    # 4. A sentence-transformers repo: the BertModel at the root, then Pooling, a Dense layer in its own
    #    folder (nn.Linear(32, 16) saved as sentence-transformers does: "linear.weight", "linear.bias"),
    #    and Normalize.
    d = root / "tiny-st"
    _bert("BertModel").save_pretrained(d)
    modules = [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Dense", "type": "sentence_transformers.models.Dense"},
        {"idx": 3, "name": "3", "path": "3_Normalize", "type": "sentence_transformers.models.Normalize"},
    ]
    (d / "modules.json").write_text(json.dumps(modules))
    (d / "1_Pooling").mkdir()
    (d / "1_Pooling" / "config.json").write_text(json.dumps({"word_embedding_dimension": 32,
                                                             "pooling_mode_mean_tokens": True}))
    (d / "2_Dense").mkdir()
    torch.manual_seed(1)
    linear = torch.nn.Linear(32, 16)
    (d / "2_Dense" / "config.json").write_text(json.dumps({
        "in_features": 32, "out_features": 16, "bias": True,
        "activation_function": "torch.nn.modules.activation.Tanh"}))
    save_file({"linear." + k: v.contiguous() for k, v in linear.state_dict().items()},
              str(d / "2_Dense" / "model.safetensors"), metadata={"format": "pt"})
    (d / "3_Normalize").mkdir()
    repos["tiny/bert-st"] = Repo(d)

    # 5. Gated: the MLM checkpoint behind the gate.
    repos["tiny/bert-gated"] = Repo(root / "tiny-mlm", gated=True, sha="0" * 39 + "1")

    # 6. No config.json (an adapter-only repo).
    d = root / "tiny-noconfig"
    d.mkdir()
    (d / "README.md").write_text("adapter only\n")
    repos["tiny/no-config"] = Repo(d)

    # 7. A broken header: N over the 25,000,000 limit.
    d = root / "tiny-badheader"
    d.mkdir()
    (d / "config.json").write_text((root / "tiny-mlm" / "config.json").read_text())
    (d / "model.safetensors").write_bytes((25_000_001).to_bytes(8, "little") + b"{}")
    repos["tiny/bad-header"] = Repo(d)

    # 8. A header whose offsets point past the end of the file.
    d = root / "tiny-badoffsets"
    d.mkdir()
    (d / "config.json").write_text((root / "tiny-mlm" / "config.json").read_text())
    header = json.dumps({"x": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}).encode()
    (d / "model.safetensors").write_bytes(len(header).to_bytes(8, "little") + header + b"\0" * 8)
    repos["tiny/bad-offsets"] = Repo(d)

    # 9. A header that is not JSON.
    d = root / "tiny-notjson"
    d.mkdir()
    (d / "config.json").write_text((root / "tiny-mlm" / "config.json").read_text())
    (d / "model.safetensors").write_bytes((7).to_bytes(8, "little") + b"{nope!}")
    repos["tiny/not-json"] = Repo(d)
    return repos


@pytest.fixture(scope="session")
def repos(tmp_path_factory) -> dict[str, Repo]:
    return make_repos(tmp_path_factory.mktemp("hub"))


@pytest.fixture()
def hub(repos):
    h = Hub(dict(repos)).start()
    yield h
    h.stop()
