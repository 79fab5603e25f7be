"""XLM-RoBERTa and CamemBERT facts. Standard library only: this file also runs inside Pyodide.

Expected numbers are totals transformers 5.23 computes from the published configs
(measured with ``num_parameters()`` on the meta device, /work/notes/families.md and
its totals table) or arithmetic written out here, never values the code produced.
"""
from calculator import views
from calculator.build import build
from calculator.families import FAMILIES
from calculator.presets import PRESETS

from .helpers import expect_error

XLMR_BASE = PRESETS["xlm-roberta-base"].config
SMALL = {"vocab_size": 100, "hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2,
         "intermediate_size": 32, "max_position_embeddings": 20, "type_vocab_size": 1}


def _layer(h: int, i: int) -> int:
    # Q, K, V, output with biases; the feed-forward pair; two LayerNorms
    return 4 * h * h + 4 * h + 2 * h * i + i + h + 4 * h


def test_published_base_models_match_transformers():
    assert build(XLMR_BASE).total == 278_043_648
    assert build(PRESETS["xlm-roberta-large"].config).total == 559_890_432
    assert build(PRESETS["BAAI/bge-m3"].config).total == 567_754_752
    assert build(PRESETS["camembert-base"].config).total == 110_621_952


def test_xlm_roberta_base_by_hand():
    v, p, t, h, i = 250002, 514, 1, 768, 3072
    embeddings = (v + p + t) * h + 2 * h
    total = embeddings + 12 * _layer(h, i) + h * h + h
    assert total == 278_043_648
    assert build(XLMR_BASE).total == total
    # num_parameters(exclude_embeddings=True) drops the three tables, keeps their LayerNorm
    assert views.num_parameters(build(XLMR_BASE), exclude_embeddings=True) == total - (v + p + t) * h == 85_646_592


def test_bge_m3_is_xlm_r_large_with_8192_more_positions():
    large = build(PRESETS["xlm-roberta-large"].config).total
    assert build(PRESETS["BAAI/bge-m3"].config).total - large == (8194 - 514) * 1024


def test_config_defaults_are_berts_not_robertas():
    # XLMRobertaConfig() declares vocab 30522, 512 positions, 2 token types
    for mt, base in (("xlm-roberta", "XLMRobertaModel"), ("camembert", "CamembertModel")):
        inv = build({"model_type": mt})
        assert inv.architecture == base
        shapes = {t.name: t.shape for t in inv.tensors}
        assert shapes["embeddings.word_embeddings.weight"] == (30522, 768)
        assert shapes["embeddings.position_embeddings.weight"] == (512, 768)
        assert shapes["embeddings.token_type_embeddings.weight"] == (2, 768)


def test_masked_lm_registers_its_head_first_and_owns_the_shared_table():
    inv = build(dict(XLMR_BASE, model_type="xlm-roberta"), "XLMRobertaForMaskedLM")
    names = [t.name for t in inv.tensors]
    assert names[:7] == [
        "lm_head.bias", "lm_head.dense.weight", "lm_head.dense.bias", "lm_head.layer_norm.weight",
        "lm_head.layer_norm.bias", "lm_head.decoder.weight", "lm_head.decoder.bias",
    ]
    assert names[7] == "roberta.embeddings.word_embeddings.weight"
    tied = {t.name: t.tied_to for t in inv.tensors if t.tied_to}
    assert tied == {
        "lm_head.decoder.bias": "lm_head.bias",
        "roberta.embeddings.word_embeddings.weight": "lm_head.decoder.weight",
    }
    # transformers: 278,295,186 parameters, 470,546,724 summed over state_dict, and
    # exclude_embeddings keeps the table (its first name is the decoder, an nn.Linear)
    assert inv.total == 278_295_186
    assert inv.state_dict_total == 470_546_724
    assert views.num_parameters(inv, exclude_embeddings=True) == 277_899_666 == 278_295_186 - (514 + 1) * 768
    # ... while the breakdown still charges the table to the embeddings
    emb, _ = views.embedding_split(inv)
    assert emb == (250002 + 514 + 1) * 768 + 2 * 768


def test_small_config_totals_from_transformers():
    # /work/notes/families.md §1.3: V=100, H=16, L=2, heads=2, I=32, P=20, T=1, N=2
    expected = {
        "XLMRobertaModel": 6688, "XLMRobertaForMaskedLM": 6820, "XLMRobertaForCausalLM": 6820,
        "XLMRobertaForSequenceClassification": 6722, "XLMRobertaForMultipleChoice": 6705,
        "XLMRobertaForTokenClassification": 6450, "XLMRobertaForQuestionAnswering": 6450,
    }
    for arch, total in expected.items():
        assert build(dict(SMALL, model_type="xlm-roberta"), arch).total == total, arch
        camembert = arch.replace("XLMRoberta", "Camembert")
        assert build(dict(SMALL, model_type="camembert"), camembert).total == total, camembert
    masked = build(dict(SMALL, model_type="xlm-roberta"), "XLMRobertaForMaskedLM")
    assert views.num_parameters(masked, exclude_embeddings=True) == 6484
    assert views.num_parameters(build(dict(SMALL, model_type="xlm-roberta")), exclude_embeddings=True) == 4752


def test_untied_head_has_its_own_decoder_and_bias():
    inv = build(dict(SMALL, model_type="xlm-roberta", tie_word_embeddings=False), "XLMRobertaForMaskedLM")
    assert not any(t.tied_to for t in inv.tensors)
    assert inv.total == 6820 + 100 * 16 + 100


def test_padding_row_must_exist_in_the_position_table():
    # padding_idx=pad_token_id (1) for the position table too
    expect_error("padding_idx", build, dict(SMALL, model_type="xlm-roberta", max_position_embeddings=1))
    assert build(dict(SMALL, model_type="camembert", max_position_embeddings=2)).total > 0


def test_every_task_class_but_the_base_model_puts_its_head_first():
    for mt in ("xlm-roberta", "camembert"):
        for arch in FAMILIES[mt].architectures:
            first = build(dict(SMALL, model_type=mt), arch.name).tensors[0].name
            if arch.name == FAMILIES[mt].base:
                assert first == "embeddings.word_embeddings.weight"
            else:
                assert not first.startswith("roberta."), (mt, arch.name)


def test_presets_record_the_published_class():
    assert PRESETS["xlm-roberta-base"].published_architecture == "XLMRobertaForMaskedLM"
    assert PRESETS["BAAI/bge-m3"].published_architecture == "XLMRobertaModel"
    assert PRESETS["camembert-base"].published_architecture == "CamembertForMaskedLM"
