"""Every word the calculator page prints that the views do not already have, in English and Chinese.

Family-specific words (field labels, legends, titles) are the families' own
(:mod:`calculator.families`); this module only looks them up.
"""
from __future__ import annotations

from typing import Any

from ..families import FAMILIES
from ..families.base import Family
from ..i18n import label, norm_lang, paren, pick

#: Words the calculator page needs on top of :data:`calculator.i18n.LABELS`.
UI_LABELS: dict[str, dict[str, str]] = {
    # The reconciliation panel: the count each tool prints, and why it differs.
    "counts_title": {"en": "What other tools print", "zh": "其他工具打印的数字"},
    "counts_tool": {"en": "Tool, call and why", "zh": "工具、调用与原因"},
    "counts_delta_is": {"en": "difference {delta}", "zh": "差值 {delta}"},
    "counts_hub_known": {
        "en": "The Hub shows {count} for {preset}: its published file holds the tensors of {architecture} ({source}).",
        "zh": "Hub 上 {preset} 显示的是 {count}：它发布的文件存的是 {architecture} 的张量（{source}）。",
    },
    "counts_hub_source": {"en": "model page", "zh": "模型页面"},
    "counts_hub_unknown": {
        "en": "The Hub counts what the published file stores, which may be another class than this one.",
        "zh": "Hub 统计的是发布的文件里实际存了什么，存的可能不是这里这个类。",
    },
    "counts_hub_why": {"en": "Why tools disagree: what the Hub shows", "zh": "为什么各个工具给出的参数量不一样：Hub 上显示的数"},
    # The fine-tuning planner (its fields' words are the options', calculator.options).
    "planner_legend": {
        "en": "Fine-tuning: trainable parameters (LoRA as peft applies it, or freezing)",
        "zh": "微调：可训练参数量（按 peft 的方式加 LoRA，或手动冻结）",
    },
    "plan_title_lora": {"en": "Trainable parameters under LoRA", "zh": "加 LoRA 后的可训练参数量"},
    "plan_title_freeze": {"en": "Trainable parameters after freezing", "zh": "冻结后的可训练参数量"},
    "plan_line_note": {
        "en": "peft's print_trainable_parameters() prints exactly this line:",
        "zh": "peft 的 print_trainable_parameters() 打印的正是这一行：",
    },
    "plan_trainable": {"en": "Trainable", "zh": "可训练"},
    "plan_all": {"en": "All parameters (as peft counts them)", "zh": "全部参数（按 peft 的计数方式）"},
    "plan_percent": {"en": "trainable%", "zh": "可训练占比（trainable%）"},
    "plan_mini": {"en": "Trainable {trainable} of {all} ({percent})", "zh": "可训练 {trainable} / {all}（{percent}）"},
    "plan_added": {"en": "Tensors LoRA adds", "zh": "LoRA 新增的张量"},
    "plan_added_n": {"en": "Tensors LoRA adds ({n})", "zh": "LoRA 新增的张量（{n} 个）"},
    # Freezing involves no peft: its "all" is the model's own total.
    "plan_all_freeze": {"en": "All parameters", "zh": "全部参数"},
    "plan_copies": {
        "en": "modules_to_save copies (trainable, and counted again in all params)",
        "zh": "modules_to_save 副本（可训练，且在 all params 中再算一次）",
    },
    # The model-id field above the paste box (issue 33, item 4; calculator/page/hub.py answers it).
    "model_hint": {
        "en": "owner/name, owner/name@revision or the model's address; reads config.json and the safetensors headers "
        "from huggingface.co",
        "zh": "owner/name、owner/name@版本或模型的网址；从 huggingface.co 读取 config.json 和 safetensors 文件头",
    },
    "model_read": {"en": "Read from the Hub", "zh": "从 Hub 读取"},
    "model_progress": {"en": "Reading {model}: {requests} requests, {bytes} bytes read",
                       "zh": "正在读取 {model}：已发出 {requests} 个请求，已读取 {bytes} 字节"},
    "model_done": {"en": "Read {model}: {requests} requests, {bytes} bytes",
                   "zh": "已读取 {model}：共 {requests} 个请求，{bytes} 字节"},
    # The Hub's modules could not be downloaded (offline before a first model id): worker.js says only the code.
    "model_offline": {
        "en": "Could not read the Hub: this page is offline. A config.json pasted below works offline.",
        "zh": "无法读取 Hub：本页面处于离线状态。在下面粘贴 config.json 不需要联网。",
    },
    # The name of a result computed from a pasted config.json (never a preset's, whatever its tensors).
    "pasted_config": {"en": "pasted config", "zh": "自定义配置"},
    # The reader's own name for the result (label= in the link): it heads the title and the copies.
    "label": {"en": "Your name for this result (optional)", "zh": "给这个结果起个名字（可选）"},
    # A preset whose values were changed keeps its name, saying which keys differ.
    "preset_changed": {"en": "{preset}, changed: {keys}", "zh": "{preset}，已修改：{keys}"},
    "preset_changed_sep": {"en": ", ", "zh": "、"},
    "form_title": {"en": "Model", "zh": "模型"},
    "preset": {"en": "Start from a published model", "zh": "从公开的预训练模型开始"},
    "preset_custom": {"en": "(custom values)", "zh": "（自定义数值）"},
    "model_type": {"en": "Model family", "zh": "模型系列"},
    "architecture": {"en": "Architecture / task head", "zh": "架构 / 任务头"},
    "pooler": {"en": "Include the pooler", "zh": "包含池化层"},
    "pooler_choice": {
        "en": "Only the base model lets you choose whether it has a pooler (add_pooling_layer).",
        "zh": "只有基础模型可以选择是否带池化层（add_pooling_layer）。",
    },
    "pooler_fixed_on": {"en": "{architecture} always has a pooler.", "zh": "{architecture} 始终包含池化层。"},
    "pooler_fixed_off": {"en": "{architecture} has no pooler.", "zh": "{architecture} 不含池化层。"},
    "fields_legend": {"en": "{family} hyperparameters (config.json keys)", "zh": "{family} 超参数（config.json 中的键）"},
    # Families that are not configured by a config.json (FIELDS_LEGEND): what their keys really are.
    "fields_legend_keras": {"en": "{family} arguments", "zh": "{family} 参数"},
    "fields_legend_transformer": {
        "en": "{family}: arguments of Transformer() in attention-is-all-you-need-pytorch",
        "zh": "{family}：attention-is-all-you-need-pytorch 中 Transformer() 的构造参数",
    },
    # T5, mT5, umT5: the config.json is an encoder-decoder's, the class counted its encoder alone.
    "fields_legend_encoder": {
        "en": "{family} hyperparameters (config.json keys; counted: the encoder only, without the decoder)",
        "zh": "{family} 超参数（config.json 中的键；只计编码器，不含解码器）",
    },
    "not_used": {"en": "Not used by {architecture}.", "zh": "{architecture} 不使用此项。"},
    "config_title": {"en": "Paste or drop a config.json", "zh": "粘贴或拖入 config.json"},
    "config_label": {
        "en": "config.json from a Hugging Face model (paste it here, or drop the file on this box)",
        "zh": "Hugging Face 模型的 config.json（粘贴到这里，或把文件拖到此框中）",
    },
    "config_file": {"en": "…or choose a file", "zh": "……或选择文件"},
    "config_apply": {"en": "Use this config", "zh": "应用此配置"},
    "config_applied": {"en": "Config applied.", "zh": "已应用该配置。"},
    "active_fraction": {
        "en": "Fraction of feed-forward neurons active per token",
        "zh": "每个 token 激活的前馈神经元比例",
    },
    "active_hint": {
        "en": "1 for a dense model; e.g. 12/4095 for UltraFastBERT. Changes what one token uses, not what is stored.",
        "zh": "稠密模型为 1；例如 UltraFastBERT 为 12/4095。它改变的是单个 token 用到的参数，而不是存储的参数。",
    },
    "active_title": {"en": "Used per token", "zh": "每个 token 用到的参数"},
    "active_summary": {
        "en": "With {fraction} of the feed-forward neurons active, one token uses {active} of the {stored} stored parameters ({share}).",
        "zh": "前馈神经元中有 {fraction} 处于激活状态时，每个 token 用到 {stored} 个存储参数中的 {active} 个（{share}）。",
    },
    "active_ff": {"en": "Feed-forward parameters stored", "zh": "存储的前馈参数"},
    "active_ff_used": {"en": "Feed-forward parameters used per token", "zh": "每个 token 用到的前馈参数"},
    "active_used": {"en": "Parameters used per token", "zh": "每个 token 用到的参数"},
    "active_stored": {"en": "Parameters stored (unchanged)", "zh": "存储的参数（不变）"},
    "copy_link": {"en": "Copy link", "zh": "复制链接"},
    "copy_markdown": {"en": "Copy as Markdown", "zh": "复制为 Markdown"},
    "copy_text": {"en": "Copy as text", "zh": "复制为纯文本"},
    "copied": {"en": "Copied.", "zh": "已复制。"},
    "copy_stale": {
        "en": "Not copied: fix the marked input first; the result shown is out of date.",
        "zh": "未复制：请先修正标红的输入项，当前结果未更新。",
    },
    "copy_stale_general": {
        "en": "Not copied: the inputs have an error (see the message above); the result shown is out of date.",
        "zh": "未复制：输入有误（见上方提示），当前结果未更新。",
    },
    # The training-cost panel's Copy refused after the step's own error (issue 35: reliability L3, zh M3):
    # it names the field by its label, or says that the model class or plan is the cause.
    "copy_costs_field": {
        "en": "Not copied: fix “{field}” first (see the message beside it); the training cost shown is not for these inputs.",
        "zh": "未复制：请先修正“{field}”（见其旁边的说明），当前显示的训练开销并不对应这些输入。",
    },
    "copy_costs_general": {
        "en": "Not copied: the training cost cannot be calculated for this model class or fine-tuning plan "
        "(see the message above); the figures shown are the last valid result.",
        "zh": "未复制：当前模型类或微调方案无法计算训练开销（见上方说明），下面显示的是上一个有效结果。",
    },
    "copy_costs_none": {
        "en": "Not copied: the training cost cannot be calculated for these inputs (see the message above).",
        "zh": "未复制：当前输入无法计算训练开销（见上方说明）。",
    },
    # A result whose link would outgrow what web servers accept (issue 35: reliability review 2 L6): the address
    # keeps no query, Copy link refuses, and this says why and what still works. Code: link_too_long.
    "error_link_too_long": {
        "en": "This result's link would be {kb} KB long, more than the 8 KB that web servers accept, so the address "
        "does not hold it and Copy link is off for this result. Copy as Markdown or as text keeps the figures; "
        "to come back to it, paste the same config.json.",
        "zh": "这个结果的链接长达 {kb} KB，超过网页服务器接受的 8 KB，因此地址栏中不保存它，这个结果也不能“复制链接”。"
        "“复制为 Markdown”和“复制为纯文本”仍可保留这些数字；以后要重新得到它，请再次粘贴同一个 config.json。",
    },
    # Stands in the panel instead of "Calculating the training step…" once an error answers it.
    "costs_unavailable": {
        "en": "Cannot cost this step: the reason is in the message above.",
        "zh": "无法计算这一步的开销：原因见上方说明。",
    },
    # Copy while the result shown is not yet the current inputs' (reliability review #6).
    "copy_pending": {
        "en": "Not copied: the result for these inputs is still being calculated; try again in a moment.",
        "zh": "未复制：当前输入的结果还在计算中，请稍后再试。",
    },
    "copy_not_computed": {
        "en": "Not copied: the calculator is not running, so the result shown is not the one for these inputs.",
        "zh": "未复制：计算器没有运行，当前显示的结果并不对应这些输入。",
    },
    # The watchdog: a request that got no answer in time; the worker is started again.
    "error_timeout": {
        "en": "The calculator took too long on this input and was restarted; the result shown is not for it. "
        "Change the input to try again.",
        "zh": "计算器处理这个输入用时过长，已重新启动；当前显示的结果并不对应它。修改输入后可再试一次。",
    },
    "status_restarting": {
        "en": "Restarting the calculator (it did not answer in time)…",
        "zh": "计算器没有及时响应，正在重新启动……",
    },
    # One build per answer: the page and the Python that would answer it come from different deploys.
    "status_build_mismatch": {
        "en": "This page and the calculator kept by your browser come from different versions of the site, so the "
        "calculator is off: its numbers would not be this page's. The result shown was computed when this page "
        "was built. Reload the page while online to get the current version.",
        "zh": "此页面和浏览器保存的计算器来自网站的不同版本，因此计算器已停用：它算出的数字不属于这个页面。"
        "当前显示的结果是构建此页面时算好的。请在联网时重新加载页面，以获取当前版本。",
    },
    # Stands in the large type while a shared link's result is computed.
    "calculating": {"en": "calculating…", "zh": "正在计算……"},
    "copy_failed": {
        "en": "Could not copy: the browser refused access to the clipboard.",
        "zh": "复制失败：浏览器拒绝访问剪贴板。",
    },
    "status_loading": {
        "en": "Loading Python in your browser… The total above is already exact.",
        "zh": "正在浏览器中加载 Python……上面的总数已是精确值。",
    },
    "status_loading_other": {
        "en": "Loading Python in your browser… Until then this is bert-base-uncased's result.",
        "zh": "正在浏览器中加载 Python……在此之前显示的是 bert-base-uncased 的结果。",
    },
    "status_ready": {"en": "Ready: results update as you type.", "zh": "已就绪：输入时结果随之更新。"},
    "status_failed": {
        "en": "The calculator could not start in this browser ({detail}). The tables below are bert-base-uncased's, "
        "computed when this page was built; the command line gives every other model: python -m calculator --help.",
        "zh": "计算器无法在此浏览器中启动（{detail}）。下方表格是构建页面时算好的 bert-base-uncased 结果；"
        "其他模型可以用命令行计算：python -m calculator --help。",
    },
    "stale": {
        "en": "Out of date: this is the result for the last valid input.",
        "zh": "结果未更新：当前显示的是上一次有效输入的结果。",
    },
    # A link whose inputs have an error: nothing was computed for it, the page still shows its default.
    "stale_link": {
        "en": "This link's inputs have an error, so nothing is calculated for it: the result shown is "
        "bert-base-uncased's, the page's default.",
        "zh": "这个链接里的输入有误，尚未计算：当前显示的是页面默认模型 bert-base-uncased 的结果。",
    },
    "stale_fix_field": {"en": "Fix the marked field to update it.", "zh": "修正标红的输入项即可更新。"},
    # Two fields marked (hidden size and heads that do not divide): changing either one fixes it.
    "stale_fix_fields": {
        "en": "Change one of the marked fields to update it.",
        "zh": "修改任一标红的输入项即可更新。",
    },
    "stale_fix_general": {
        "en": "Change the inputs as the message above says to update it.",
        "zh": "按上方提示修改输入后，结果会更新。",
    },
    "error_internal": {
        "en": "Something went wrong inside the calculator; the last result is kept. Please copy the link and report it.",
        "zh": "计算器内部出错，已保留上一次的结果。请复制当前链接并反馈给我们。",
    },
    "result_title": {"en": "Breakdown", "zh": "明细"},
    "summary_title": {"en": "Result", "zh": "结果"},
    "short_form": {"en": "about {short}", "zh": "约 {short}"},
    "breakdown_title": {"en": "By component", "zh": "按组件划分"},
    "sections_title": {"en": "By part of the model", "zh": "按模型部分划分"},
    "per_layer_title": {"en": "Per encoder layer", "zh": "每个编码器层"},
    "per_group_title": {"en": "Per shared layer group", "zh": "每个共享层组"},
    "per_block_title": {"en": "Per layer: the encoder's, then the decoder's", "zh": "每层：先编码器，后解码器"},
    "formula_title": {"en": "The formula, with these numbers", "zh": "代入这些数值的公式"},
    "memory_title": {"en": "Memory for the weights alone", "zh": "权重本身占用的内存/显存"},
    "memory_note": {
        "en": "Weights only: no gradients, optimizer state or activations. GiB and MiB are 2^30 and 2^20 bytes, "
        "as in the Training cost panel.",
        "zh": "仅权重本身：不含梯度、优化器状态和激活值。GiB、MiB 分别为 2^30、2^20 字节，与“训练开销”面板相同。",
    },
    "bytes_per_param": {"en": "Bytes per parameter", "zh": "每个参数的字节数"},
    "size": {"en": "Size", "zh": "大小"},
    "exact_bytes": {"en": "{n} bytes", "zh": "{n} 字节"},
    "tensors_title": {"en": "Every tensor ({n} entries in state_dict)", "zh": "全部张量（state_dict 中 {n} 项）"},
    # keras-bert has no state_dict: its tensors are the Keras model's weights.
    "tensors_title_keras": {"en": "Every weight ({n} in model.weights)", "zh": "全部权重（model.weights 中共 {n} 个）"},
    "chart_title": {"en": "Where the parameters are", "zh": "参数分布"},
    "announce": {"en": "{model}: {total} parameters ({short}).", "zh": "{model}：{total} 个参数（{short}）。"},
    "tied_once": {"en": "tied", "zh": "共享"},
    "keras_title": {
        "en": "Keras summary: model.summary(), {n} rows",
        "zh": "Keras 的 summary：model.summary() 的输出，共 {n} 行",
    },
    "keras_note": {
        "en": "The rows Keras prints, in its order; layers without parameters (inputs, Add, Dropout, …) included.",
        "zh": "按 Keras 的打印顺序列出所有行，包括没有参数的层（输入层、Add、Dropout 等）。",
    },
    "keras_layer": {"en": "Layer (type)", "zh": "层（类型）"},
    "keras_params": {"en": "Param #", "zh": "参数量"},
    "keras_trainable": {"en": "Trainable", "zh": "可训练"},
    "keras_yes": {"en": "yes", "zh": "是"},
    "keras_no": {"en": "no", "zh": "否"},
    "keras_total": {"en": "Total params", "zh": "总参数量"},
    "keras_trainable_total": {"en": "Trainable params", "zh": "可训练参数量"},
    "keras_non_trainable_total": {"en": "Non-trainable params", "zh": "不可训练参数量"},
    "extras_note": {
        "en": "Also in effect (config.json keys without a field here): {keys}",
        "zh": "以下 config.json 键同样生效（表单中没有对应的输入项）：{keys}",
    },
    "default_note": {
        "en": "Every input is in the page address, so a copied link opens this exact result.",
        "zh": "所有输入都保存在页面地址中，复制的链接会打开完全相同的结果。",
    },
}

def fields_legend(model_type: str, lang: str = "en") -> str:
    """The legend of a family's fieldset: its title, and what its keys are (config.json or arguments)."""
    fam = FAMILIES[model_type]
    text = ui(fam.legend, lang, family=fam.title.get(norm_lang(lang), model_type))
    # No space after a full-width bracket: "Transformer（…）超参数".
    return text.replace("） ", "）")


def family_option(model_type: str, lang: str = "en") -> str:
    """A family as the model-family menu names it: its title, and the ``model_type`` a config.json has.

    Families without a config.json (keras-bert, the 2018 Transformer) show their
    title alone: their ``model_type`` is only this site's name for them, and the
    longer titles must fit the menu on a phone.
    """
    family = FAMILIES[model_type]
    title = family.title.get(norm_lang(lang), model_type)
    if not family.config_json:
        return title
    return title + paren(model_type, lang, aside=True)


def ui(key: str, lang: str = "en", **params: Any) -> str:
    """A page label: :data:`UI_LABELS` first, then the shared :data:`calculator.i18n.LABELS`."""
    entry = UI_LABELS.get(key)
    if entry is None:
        return label(key, lang, **params)
    return pick(entry, lang, **params)


def field_label(family: Family, key: str, lang: str = "en") -> str:
    """What a config key means, as the family declares it (DistilBERT's n_layers is not the 2018 Transformer's)."""
    f = family.field(key)
    return pick(f.label, lang) if f is not None and f.label else key
