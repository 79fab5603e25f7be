"""What a reader must know about how a config was read: notes beside the total and in every copy (issue 35, H5).

A count is exact for the class it names. A config can ask for something else: no ``model_type`` (BERT is
assumed); an ``auto_map`` (the checkpoint ships its own model code, loaded with ``trust_remote_code=True``,
which this calculator does not run: jina-embeddings-v3 says ``xlm-roberta`` and builds rotary positions and
LoRA adapters of its own); a key that some code reads to build other tensors and the declaration does not
(:class:`calculator.families.base.IgnoredKey`: ``position_embedding_type = "rotary"``). Each becomes a note
``{code, message}``: the page shows it under the total, the CLI prints it first (JSON: ``notes``), and the
copies and the link's label carry it, so a pasted answer never passes a stock class's count off as the
custom model's.
"""
from __future__ import annotations

import json
from typing import Any, Mapping

from ..build import DEFAULT_MODEL_TYPE
from ..families import FAMILIES
from ..families._ports import port_of
from ..i18n import L, join_list, label as shared_label, pick

WORDS: dict[str, dict[str, str]] = {
    "custom_code": L(
        "Note: the config has auto_map ({classes}): the checkpoint ships its own model code, loaded with "
        "trust_remote_code=True, which this calculator does not run. These counts are for transformers' own "
        "{architecture}, built from the same config, not for that code.",
        "注意：配置中带有 auto_map（{classes}）：checkpoint 自带模型代码，需要 trust_remote_code=True 才能加载，"
        "本计算器不运行这些代码。这里的数字是按 transformers 自带的 {architecture}、用同一个配置构建得出的，"
        "不是那份自定义代码构建的模型。",
    ),
    "unread_keys": L(
        " Keys {architecture} does not read (the checkpoint's code may): {keys}.",
        "{architecture} 不读取的键（checkpoint 自带的代码可能会读取）：{keys}。",
    ),
    "port": L(
        " transformers 5.23 ports this code natively as {native} (model_type \"{model_type}\"): {words}",
        "transformers 5.23 已把这份代码原生移植为 {native}（model_type 为“{model_type}”）：{words}",
    ),
    "ignored_key": L("Note: {why}", "注意：{why}"),
    "encoder_of": L(
        "Note: the config names {listed}, an encoder-decoder; counted here: {architecture}, its encoder alone "
        "(the text encoder diffusion pipelines and sentence encoders load).",
        "注意：配置中写的是 {listed}，这是编码器-解码器模型；这里计算的是 {architecture}，即只含它的编码器"
        "（扩散模型管线和句向量模型加载的文本编码器就是它）。"),
    # The link's label (and the text copy's last line): a few words after the total.
    "short_custom": L("transformers' {architecture}, not the checkpoint's own code from auto_map",
                      "按 transformers 自带的 {architecture} 计算，不是 auto_map 指向的 checkpoint 自带代码"),
    "short_ignored": L("{architecture} without what {keys} would change", "{architecture}，未计入 {keys} 带来的变化"),
    "short_assumed": L("read as {model_type}: the config has no model_type", "配置中没有 model_type，按 {model_type} 处理"),
}

#: Keys every transformers config may hold that shape no tensor of these families, or that their declarations
#: read elsewhere (token ids, initialisers, epsilons, attention kernels, dropout, bookkeeping). With
#: :attr:`Family.ignored_keys` and the keys a family reads, they cover every key of every family's
#: transformers 5.23 config class (``tests/crosscheck/test_config_notes_reference.py``); any other key is one
#: the stock class does not read.
KNOWN_KEYS: frozenset[str] = frozenset({
    # PretrainedConfig's own, and what save_pretrained writes
    "_name_or_path", "architectures", "auto_map", "model_type", "dtype", "torch_dtype", "transformers_version",
    "id2label", "label2id", "num_labels", "problem_type", "output_attentions", "output_hidden_states", "return_dict",
    "chunk_size_feed_forward", "is_encoder_decoder", "tokenizer_class", "prefix", "task_specific_params",
    "finetuning_task", "tie_word_embeddings", "use_return_dict", "torchscript", "pruned_heads",
    "gradient_checkpointing", "use_cache", "is_decoder", "add_cross_attention", "cross_attention_hidden_size",
    "tie_encoder_decoder", "decoder_start_token_id", "forced_bos_token_id", "forced_eos_token_id",
    # token ids, initialisation, epsilons
    "pad_token_id", "bos_token_id", "eos_token_id", "sep_token_id", "cls_token_id", "mask_token_id",
    "initializer_range", "initializer_std", "initializer_cutoff_factor", "layer_norm_eps", "norm_eps",
    # dropout and activations (the training step's keys where a family's step reads them)
    "hidden_dropout_prob", "attention_probs_dropout_prob", "classifier_dropout", "hidden_act", "dropout",
    "attention_dropout",
    # attention kernels and positions without tensors
    "attention_type", "block_size", "num_random_blocks", "rescale_embeddings", "attention_window", "onnx_export",
    "rope_theta", "rope_parameters", "rope_scaling", "max_position_embeddings", "layer_types", "local_attention",
    "deterministic_flash_attn", "sparse_prediction", "sparse_pred_ignore_index", "pool_q_only", "separate_cls",
    "truncate_seq", "summary_type", "summary_use_proj", "summary_activation", "summary_last_dropout",
    "esmfold_config", "is_folding_model", "vocab_list",
    # T5, mT5, umT5 (the encoder classes): no tensor; dropout_rate and dense_act_fn are the training step's
    "dropout_rate", "dense_act_fn", "initializer_factor", "layer_norm_epsilon", "relative_attention_max_distance",
    "scale_decoder_outputs",
    # XLM, FlauBERT: no tensor (gelu_activation and layerdrop change the step; is_encoder False is refused by
    # transformers itself, which builds encoders only)
    "causal", "embed_init_std", "end_n_top", "gelu_activation", "init_std", "is_encoder", "lang_id", "mask_index",
    "start_n_top", "summary_first_dropout", "unk_index", "layerdrop",
    # Llama-style bodies (EuroBERT, UltraBERT): an epsilon, a tensor-parallel setting, a window without tensors
    "rms_norm_eps", "pretraining_tp", "sliding_window",
    # approximate attention without tensors of its own (issue 34: Nyströmformer, FNet, YOSO, MRA, Reformer)
    "inv_coeff_init_option", "tpu_short_seq_length", "use_fast_hash", "lsh_backward",
    "initial_prior_first_n_blocks", "initial_prior_diagonal_n_blocks",
    # Perceiver: read only by its image, optical-flow and multimodal classes, which are not counted here
    "use_query_residual", "image_size", "train_size", "num_frames", "audio_samples_per_frame", "samples_per_patch",
    "output_shape", "output_num_channels", "_label_trainable_num_channels",
    # Reformer: hashing, chunking and initialisation, no tensors
    "axial_norm_std", "chunk_size_lm_head", "hash_seed", "local_num_chunks_before", "local_attention_probs_dropout_prob",
    "local_attn_chunk_length", "lsh_attn_chunk_length", "lsh_attention_probs_dropout_prob", "lsh_num_chunks_before",
    "num_buckets", "num_hashes",
    # TAPAS: its losses, cell selection, aggregation's labels and the table's limits (the tokenizer's), no tensor
    "aggregation_labels", "aggregation_loss_weight", "aggregation_temperature", "allow_empty_column_selection",
    "answer_loss_cutoff", "answer_loss_importance", "average_approximation_function", "average_logits_per_cell",
    "cell_selection_preference", "disable_per_token_loss", "huber_loss_delta", "init_cell_selection_weights_to_zero",
    "max_num_columns", "max_num_rows", "no_aggregation_label_index", "positive_label_weight",
    "reset_position_index_per_cell", "select_one_column", "temperature", "use_answer_as_supervision",
    "use_gumbel_for_aggregation", "use_gumbel_for_cells", "use_normalized_answer_loss",
    # NeoMME: the image and document markers' token ids, each layer's window, the residual branches' scale
    "document_token_id", "image_token_id", "per_layer_config", "residual_multiplier",
    # ModernVBERT's top level: the pooling, and its own classifier_bias, which no head reads (they read text_config's)
    "classifier_pooling", "classifier_bias",
})
#: At most this many unread keys are named (a custom config can hold dozens).
MAX_NAMED = 10


def _value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _read_keys(family: Any) -> set[str]:
    """The keys a family's declaration reads: its fields, their aliases, its link extras and step keys."""
    keys = {f.key for f in family.fields} | set(family.aliases) | {e.key for e in family.link_extras}
    if family.costs is not None:
        keys |= {k.key for k in family.costs.keys}
    return keys


def unread_keys(raw: Mapping[str, Any], family: Any) -> list[str]:
    """The keys of ``raw`` neither the family reads nor any transformers config of it holds (:data:`KNOWN_KEYS`)."""
    known = _read_keys(family) | KNOWN_KEYS | {k.key for k in family.ignored_keys}
    return [k for k in raw if isinstance(k, str) and k not in known]


def ignored(raw: Mapping[str, Any], family: Any) -> list[tuple[Any, Any]]:
    """(IgnoredKey, the config's value) for each declared ignored key the config sets to another value."""
    out = []
    for item in family.ignored_keys:
        value = raw.get(item.key)
        if value is not None and value not in item.counted:
            out.append((item, value))
    return out


def config_notes(raw: Any, lang: str = "en", inv: Any = None) -> list[dict[str, str]]:
    """The notes for ``raw`` as built into ``inv`` (without ``inv``: the no-``model_type`` note alone)."""
    out: list[dict[str, str]] = []
    if isinstance(raw, Mapping) and "model_type" not in raw:
        out.append({"code": "model_type_assumed",
                    "message": shared_label("model_type_assumed", lang, model_type=DEFAULT_MODEL_TYPE)})
    family = getattr(inv, "family", None)
    if not isinstance(raw, Mapping) or family is None:
        return out
    architecture = inv.architecture
    auto_map = raw.get("auto_map")
    if auto_map is not None:
        classes = sorted(str(v) for v in auto_map.values()) if isinstance(auto_map, Mapping) else [_value(auto_map)]
        message = pick(WORDS["custom_code"], lang, classes=join_list(classes[:4], lang), architecture=architecture)
        unread = unread_keys(raw, family)
        if unread:
            names = unread[:MAX_NAMED] + (["…"] if len(unread) > MAX_NAMED else [])
            message += pick(WORDS["unread_keys"], lang, architecture=architecture, keys=join_list(names, lang))
        note = {"code": "custom_code", "message": message}
        ported = port_of(raw)
        if ported is not None:  # issue 34 item 4: the native class, and whether its tensors are the code's
            native = FAMILIES[ported]
            if native.port_words is not None:
                note["message"] += pick(WORDS["port"], lang, native=native.base, model_type=native.model_type,
                                        words=pick(native.port_words, lang, architecture=architecture))
            adapters = native.adapters(raw, lang) if native.adapters is not None else None
            if adapters:
                note["message"] += ("" if lang == "zh" else " ") + adapters
            note["port"] = native.model_type
        out.append(note)
    listed = raw.get("architectures")
    listed = [listed] if isinstance(listed, str) else listed
    if (isinstance(listed, list) and listed and listed[0] in getattr(family, "encoder_of", ())
            and architecture == family.base):
        out.append({"code": "encoder_of", "message": pick(WORDS["encoder_of"], lang, listed=listed[0],
                                                          architecture=architecture)})
    for item, value in ignored(raw, family):
        why = pick(item.why, lang, value=_value(value), architecture=architecture)
        out.append({"code": "ignored_key", "key": item.key, "message": pick(WORDS["ignored_key"], lang, why=why)})
    return out


def short_note(notes: list[dict[str, str]], inv: Any, lang: str) -> str | None:
    """A few words for the link's label after the total (None without notes): which class was counted."""
    codes = [n["code"] for n in notes]
    if "custom_code" in codes:
        return pick(WORDS["short_custom"], lang, architecture=inv.architecture)
    keys = [n["key"] for n in notes if n["code"] == "ignored_key"]
    if keys:
        return pick(WORDS["short_ignored"], lang, architecture=inv.architecture, keys=join_list(keys, lang))
    if "model_type_assumed" in codes:
        return pick(WORDS["short_assumed"], lang, model_type=DEFAULT_MODEL_TYPE)
    return None


def notes_block(notes: list[dict[str, str]], markdown: bool = False) -> str:
    """The notes as a copy or the CLI starts with them: one paragraph each (Markdown: quoted)."""
    return "".join(("> " if markdown else "") + n["message"] + "\n\n" for n in notes)
