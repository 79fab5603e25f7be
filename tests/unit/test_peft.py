"""The trainable-parameter planner (calculator/peft.py) against hand arithmetic and lines peft printed.

Standard library only: these also run inside Pyodide. Each peft line quoted here was
printed by the real peft 0.21.2 (``print_trainable_parameters()``) on transformers 5.23's
model of the same config; each is also derived by hand next to it. Random configs and
settings against the live peft are in tests/crosscheck/test_peft_reference.py.
"""
from __future__ import annotations

import contextlib
import io
import json

from calculator import cli
from calculator import peft as planner
from calculator.build import build
from calculator.presets import PRESETS

from .helpers import expect_error

H, V, I, L = 768, 30522, 3072, 12  # bert-base-uncased
BERT = PRESETS["bert-base-uncased"].config
SEQ_CLS_TOTAL = 109_482_240 + 2 * H + 2  # BertModel + classifier [2, H] and its bias


def bert(arch: str = "BertForSequenceClassification", **changes):
    return build(dict(BERT, **changes), arch)


def test_the_usual_setup_seq_cls():
    """r = 8 on query and value of 12 layers: 24 × r·(H + H); SEQ_CLS copies the classifier (2H + 2)."""
    plan = planner.lora(bert(), 8, ["query", "value"], task_type="SEQ_CLS")
    lora = L * 2 * 8 * (H + H)
    assert lora == 294_912
    assert plan.trainable == lora + 2 * H + 2 == 296_450
    assert plan.all == SEQ_CLS_TOTAL + lora + 2 * H + 2  # the copy counts again next to the frozen original
    assert plan.line == "trainable params: 296,450 || all params: 109,780,228 || trainable%: 0.2700"
    assert not plan.warnings
    assert len(plan.added) == 48
    first = plan.added[0]
    assert (first.name, first.shape) == ("base_model.model.bert.encoder.layer.0.attention.self.query.lora_A.default.weight", (8, H))
    assert (plan.added[1].name, plan.added[1].shape) == (
        "base_model.model.bert.encoder.layer.0.attention.self.query.lora_B.default.weight", (H, 8))
    names = [t.name for t in plan.tensors]
    assert names[-4:] == [
        "base_model.model.classifier.original_module.weight", "base_model.model.classifier.original_module.bias",
        "base_model.model.classifier.modules_to_save.default.weight",
        "base_model.model.classifier.modules_to_save.default.bias",
    ]
    i = names.index("base_model.model.bert.encoder.layer.0.attention.self.query.base_layer.weight")
    assert names[i + 1:i + 4] == [
        "base_model.model.bert.encoder.layer.0.attention.self.query.base_layer.bias",
        "base_model.model.bert.encoder.layer.0.attention.self.query.lora_A.default.weight",
        "base_model.model.bert.encoder.layer.0.attention.self.query.lora_B.default.weight",
    ]
    assert plan.targets[0] == "bert.encoder.layer.0.attention.self.query" and len(plan.targets) == 24
    assert plan.saved == ("classifier",)


def test_without_task_type_the_classifier_is_frozen():
    """peft issue #801: the same setup without task_type trains LoRA only, and says so."""
    plan = planner.lora(bert(), 8, ["query", "value"])
    assert plan.line == "trainable params: 294,912 || all params: 109,778,690 || trainable%: 0.2686"
    assert plan.all == SEQ_CLS_TOTAL + 294_912
    (warning,) = plan.warnings
    assert warning.code == "head_frozen"
    assert "classifier" in warning.message("en") and "#801" in warning.message("en")
    assert "classifier" in warning.message("zh") and warning.message("zh") != warning.message("en")
    # modules_to_save does what task_type would
    fixed = planner.lora(bert(), 8, ["query", "value"], modules_to_save=["classifier"])
    assert (fixed.trainable, fixed.all, fixed.warnings) == (296_450, 109_780_228, ())


def test_deberta_v3s_pooler_is_random_and_frozen_unless_saved():
    """chinese-review-2 M1: microsoft/deberta-v3-base ships no ContextPooler weights, so a LoRA plan that
    leaves pooler.dense frozen trains through a random 768 x 768 layer; saving it trains it.

    By hand (H = 768, r = 8, peft's default targets query_proj and value_proj in 12 layers):
    LoRA 12 x 2 x (8 x 768 + 768 x 8) = 294,912; classifier 768 x 2 + 2 = 1,538;
    pooler.dense 768 x 768 + 768 = 590,592; with the pooler saved 294,912 + 1,538 + 590,592 = 887,042.
    """
    inv = build(PRESETS["microsoft/deberta-v3-base"].config, "DebertaV2ForSequenceClassification")
    plan = planner.lora(inv, 8, None, task_type="SEQ_CLS")
    assert plan.trainable == 294_912 + 1_538
    (warning,) = plan.warnings
    assert warning.code == "pooler_random"
    assert "pooler" in warning.message("en") and "modules_to_save" in warning.message("en")
    assert "pooler" in warning.message("zh") and warning.message("zh") != warning.message("en")
    saved = planner.lora(inv, 8, None, task_type="SEQ_CLS", modules_to_save=["pooler"])
    assert (saved.trainable, saved.warnings) == (887_042, ())
    # BERT's pooler was pre-trained (next-sentence prediction): no such warning there.
    assert all(w.code != "pooler_random" for w in planner.lora(bert(), 8, ["query", "value"], task_type="SEQ_CLS").warnings)


def test_roberta_copies_its_whole_classification_head():
    """RobertaClassificationHead is dense [H, H] + out_proj [2, H]: the copy is H² + H + 2H + 2."""
    plan = planner.lora(build(PRESETS["roberta-base"].config, "RobertaForSequenceClassification"), 8,
                        ["query", "value"], task_type="SEQ_CLS")
    assert plan.trainable == 294_912 + H * H + H + 2 * H + 2 == 887_042
    assert plan.line == "trainable params: 887,042 || all params: 125,534,212 || trainable%: 0.7066"


def test_distilbert_pre_classifier_is_saved_too():
    """peft matches modules_to_save by plain suffix: "classifier" also takes pre_classifier (H² + H)."""
    inv = build(PRESETS["distilbert-base-uncased"].config, "DistilBertForSequenceClassification")
    plan = planner.lora(inv, 16, ["q_lin", "v_lin"], task_type="SEQ_CLS")
    assert plan.saved == ("pre_classifier", "classifier")
    assert plan.trainable == 6 * 2 * 16 * (H + H) + (H * H + H) + (2 * H + 2) == 887_042
    assert plan.line == "trainable params: 887,042 || all params: 67,842,052 || trainable%: 1.3075"


def test_all_linear_leaves_out_the_output_embedding():
    """BertForMaskedLM: per layer Q, K, V, O (H → H), H → I, I → H; the MLM transform H → H; not the decoder."""
    plan = planner.lora(bert("BertForMaskedLM"), 8, "all-linear")
    per_layer = 8 * (4 * (H + H) + (H + I) + (I + H))
    assert plan.trainable == L * per_layer + 8 * (H + H) == 1_339_392
    assert plan.line == "trainable params: 1,339,392 || all params: 110,853,690 || trainable%: 1.2083"
    assert "cls.predictions.decoder" not in plan.targets
    assert planner.output_embedding(bert("BertForMaskedLM")) == "cls.predictions.decoder"


def test_token_classification_and_question_answering():
    """TOKEN_CLS saves the classifier [9, H]; QUESTION_ANS the qa_outputs [2, H], here with bias="all"."""
    tok = planner.lora(bert("BertForTokenClassification", num_labels=9), 8, ["query", "value"], task_type="TOKEN_CLS")
    assert tok.trainable == 294_912 + 9 * H + 9
    assert tok.line == "trainable params: 301,833 || all params: 109,200,402 || trainable%: 0.2764"
    qa = planner.lora(bert("BertForQuestionAnswering"), 8, ["query", "value"], bias="all", task_type="QUESTION_ANS")
    # every bias but the frozen original of qa_outputs: per layer Q, K, V, O (4H), I, H, two LayerNorms (2H),
    # plus the embedding LayerNorm's (H)
    biases = L * (4 * H + I + H + 2 * H) + H
    assert qa.trainable == 294_912 + 2 * H + 2 + biases == 398_594
    assert qa.line == "trainable params: 398,594 || all params: 109,189,636 || trainable%: 0.3650"


def test_lora_on_an_embedding():
    """nn.Embedding(V, H): lora_embedding_A [r, V], lora_embedding_B [H, r]; the tied decoder keeps the base weight."""
    plan = planner.lora(bert("BertForMaskedLM"), 4, ["word_embeddings"])
    assert plan.trainable == 4 * V + H * 4 == 125_160
    assert plan.line == "trainable params: 125,160 || all params: 109,639,458 || trainable%: 0.1142"
    assert [(t.name, t.shape) for t in plan.added] == [
        ("base_model.model.bert.embeddings.word_embeddings.lora_embedding_A.default", (4, V)),
        ("base_model.model.bert.embeddings.word_embeddings.lora_embedding_B.default", (H, 4)),
    ]
    decoder = next(t for t in plan.tensors if t.name.endswith("cls.predictions.decoder.weight"))
    assert decoder.tied_to == "base_model.model.bert.embeddings.word_embeddings.base_layer.weight"


def test_bias_modes_by_hand():
    small = dict(model_type="bert", vocab_size=50, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                 intermediate_size=20, max_position_embeddings=40, num_labels=3)
    inv = build(small, "BertForSequenceClassification")
    lora = 2 * (16 + 16)  # r = 2 on the one query
    assert planner.lora(inv, 2, ["query"]).trainable == lora
    assert planner.lora(inv, 2, ["query"], bias="lora_only").trainable == lora + 16  # query's own bias
    # all: Q, K, V, O (4·16), both LayerNorms (2·16), intermediate (20), output (16), embedding LayerNorm (16),
    # pooler (16), classifier (3)
    assert planner.lora(inv, 2, ["query"], bias="all").trainable == lora + 4 * 16 + 2 * 16 + 20 + 16 + 16 + 16 + 3


def test_names_match_as_peft_matches_them():
    inv = bert()
    one = planner.lora(inv, 2, ["bert.encoder.layer.3.attention.self.query"])
    assert one.targets == ("bert.encoder.layer.3.attention.self.query",)
    tail = planner.lora(inv, 2, ["self.query"])
    assert len(tail.targets) == L
    assert planner.lora(inv, 2, ["dense"]).targets[:3] == (
        "bert.encoder.layer.0.attention.output.dense", "bert.encoder.layer.0.intermediate.dense",
        "bert.encoder.layer.0.output.dense",
    )
    regex = planner.lora(inv, 2, r".*\.layer\.(0|1)\.attention\.self\.(query|value)")
    assert len(regex.targets) == 4
    default = planner.lora(inv)  # peft's default for bert: query and value, r = 8
    assert default.trainable == 294_912


def test_skipped_targets_inside_modules_to_save_are_reported():
    plan = planner.lora(bert(), 2, ["classifier", "query"], task_type="SEQ_CLS")
    assert [w.code for w in plan.warnings] == ["lora_target_skipped"]
    assert "classifier" not in plan.targets


def test_errors_in_both_languages():
    inv = bert()
    expect_error("lora_rank", planner.lora, inv, 0, ["query"])
    expect_error("lora_rank", planner.lora, inv, "abc", ["query"])
    expect_error("lora_bias", planner.lora, inv, 8, ["query"], "some")
    expect_error("lora_task_type", planner.lora, inv, 8, ["query"], "none", "CAUSAL_LM")
    missing = expect_error("lora_target_missing", planner.lora, inv, 8, ["query", "vlaue"])
    assert "vlaue" in missing.message("en") and "query" in missing.message("en")
    assert "vlaue" in missing.message("zh")
    expect_error("lora_target_unsupported", planner.lora, inv, 8, ["LayerNorm"])
    expect_error("lora_target_unsupported", planner.lora, inv, 8, ["attention"])
    expect_error("lora_target_saved", planner.lora, inv, 8, ["classifier"], "none", "SEQ_CLS")
    expect_error("lora_target_saved", planner.lora, bert("BertForTokenClassification"), 8, "all-linear", "none",
                 "TOKEN_CLS")
    expect_error("lora_targets_required", planner.lora, inv, 8, [])
    expect_error("lora_targets_required", planner.lora, build(PRESETS["distilbert-base-uncased"].config), 8, None)
    expect_error("modules_to_save_missing", planner.lora, inv, 8, ["query"], "none", None, ["clasifier"])
    expect_error("lora_family", planner.lora, build({"model_type": "transformer"}), 8, ["w_qs"])
    expect_error("lora_no_linear", planner.lora, build({"model_type": "deberta", "num_hidden_layers": 0}), 8,
                 "all-linear")
    exc = expect_error("lora_rank", planner.lora, inv, -3, ["query"])
    assert exc.message("zh") == "LoRA 的秩 r 必须是不小于 1 的整数（当前为 -3）。"


def test_freezing_by_hand():
    inv = bert()
    embeddings = (V + 512 + 2) * H + 2 * H  # three tables and their LayerNorm
    per_layer = 4 * (H * H + H) + 2 * H + (H * I + I) + (I * H + H) + 2 * H
    assert per_layer == 7_087_872
    plan = planner.freeze(inv, embeddings=True)
    assert (plan.trainable, plan.all, plan.line) == (SEQ_CLS_TOTAL - embeddings, SEQ_CLS_TOTAL, None)
    assert planner.freeze(inv, embeddings=True, layers=6).trainable == SEQ_CLS_TOTAL - embeddings - 6 * per_layer
    assert planner.freeze(inv, all_but_head=True).trainable == 2 * H + 2
    # the MLM head's decoder is the (frozen) word embedding: only its own bias, transform and LayerNorm train
    mlm = planner.freeze(bert("BertForMaskedLM"), all_but_head=True)
    assert mlm.trainable == V + H * H + H + 2 * H == 622_650
    nothing = planner.freeze(bert("BertModel"), all_but_head=True)
    assert nothing.trainable == 0 and [w.code for w in nothing.warnings] == ["nothing_trainable"]
    expect_error("freeze_layers", planner.freeze, inv, False, 13)
    expect_error("negative", planner.freeze, inv, False, -1)


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_cli_contract():
    args = ("--preset", "bert-base-uncased", "--architecture", "BertForSequenceClassification")
    code, out, err = run_cli(*args, "--lora-r", "8", "--lora-targets", "query,value", "--peft-task-type", "SEQ_CLS",
                             "--format", "json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["peft"]["trainable"] == 296_450 and data["peft"]["all"] == 109_780_228
    assert data["peft"]["line"] == "trainable params: 296,450 || all params: 109,780,228 || trainable%: 0.2700"
    assert data["num_parameters"] == {"all": SEQ_CLS_TOTAL, "exclude_embeddings": SEQ_CLS_TOTAL - (V + 512 + 2) * H}
    code, out, _ = run_cli(*args, "--format", "json")
    assert "peft" not in json.loads(out) and json.loads(out)["num_parameters"]["all"] == SEQ_CLS_TOTAL
    for fmt in ("text", "markdown"):
        code, out, _ = run_cli(*args, "--lora-r", "8", "--lora-targets", "query,value", "--format", fmt)
        assert code == 0 and "trainable params: 294,912 || all params: 109,778,690 || trainable%: 0.2686" in out
        assert "#801" in out


def test_cli_bad_lora_input_is_one_coded_line():
    for extra, code_name in (
        (("--lora-r", "0", "--lora-targets", "query"), "lora_rank"),
        (("--lora-r", "x", "--lora-targets", "query"), "lora_rank"),
        (("--lora-r", "8", "--lora-targets", "qurey"), "lora_target_missing"),
        (("--lora-r", "8", "--lora-targets", "query", "--lora-bias", "some"), "lora_bias"),
        (("--lora-r", "8", "--lora-targets", "query", "--peft-task-type", "seq_cls"), "lora_task_type"),
    ):
        for lang in ("en", "zh"):
            code, out, err = run_cli("--preset", "bert-base-uncased", *extra, "--lang", lang)
            assert code == 2 and out == ""
            assert err.startswith(f"error: {code_name}: ") and err.count("\n") == 1, err
    _, _, en = run_cli("--preset", "bert-base-uncased", "--lora-r", "0", "--lora-targets", "query")
    _, _, zh = run_cli("--preset", "bert-base-uncased", "--lora-r", "0", "--lora-targets", "query", "--lang", "zh")
    assert en != zh and "当前为 0" in zh


def test_task_types_refuse_a_saved_name_that_ends_peft_s_own_wrapper():
    # PeftModelForSequenceClassification (and the token and QA ones) match modules_to_save again over the
    # PeftModel itself by ``key.endswith(name)``: "model" (NeoMME's and EuroBERT's backbone) also ends
    # "base_model" and "base_model.model", and peft then wraps the whole model in copies of itself.
    from calculator import peft as lora_planner
    from calculator.build import build as build_inv
    from calculator.errors import CalcError as Refused

    raw = {"model_type": "neomme", "vocab_size": 50, "embedding_rank": 8, "hidden_size": 16, "num_hidden_layers": 1,
           "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 16, "patch_size": 2, "embedding_dim": 4}
    inv = build_inv(raw, "NeoMMEForMaskedLM")
    for task in ("SEQ_CLS", "TOKEN_CLS", "QUESTION_ANS"):
        try:
            lora_planner.lora(inv, 4, ["unembedding_projection"], "none", task, ["model"])
        except Refused as exc:
            assert exc.code == "modules_to_save_nested", (task, exc.code)
        else:
            raise AssertionError(f"{task}: saving 'model' accepted")
    # Without a task type peft matches over the model alone: "model" is the backbone, saved once.
    plan = lora_planner.lora(inv, 4, ["unembedding_projection"], "none", None, ["model"])
    assert plan.all > inv.total
