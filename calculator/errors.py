"""Input errors with stable codes and messages in English and Chinese.

The code is the contract (the CLI prints it, the page puts it in
``data-error-code``); the messages are the two translations of one sentence.
"""
from __future__ import annotations

import json
from typing import Any

from .i18n import join_choice, join_list, norm_lang, pick, punct

MESSAGES: dict[str, dict[str, str]] = {
    "invalid_json": {
        "en": "The config is not valid JSON: {detail}.",
        "zh": "配置不是合法的 JSON：{detail}。",
    },
    "not_an_object": {
        "en": "The config must be a JSON object ({{...}}), not {kind}.",
        "zh": "配置必须是一个 JSON 对象（{{...}}），而不是{kind}。",
    },
    # A model this calculator cannot count: say so, say what it can count, and give the way forward.
    "unknown_model_type": {
        "en": "model_type \"{value}\" is not supported. Supported model_types (as in config.json): {supported}; "
        "and, without a config.json, {others}.{custom} {one_liner}",
        "zh": "不支持 model_type“{value}”。支持的 model_type（即 config.json 中的写法）：{supported}；"
        "另外还支持两种没有 config.json 的实现：{others}。{custom}{one_liner}",
    },
    "unknown_architecture": {
        "en": "Architecture \"{value}\" is not supported for model_type \"{model_type}\"{assumed}. "
        "Supported: {supported}.{custom} {one_liner}",
        "zh": "model_type 为“{model_type}”{assumed}时不支持架构“{value}”。可选的架构：{supported}。"
        "{custom}{one_liner}",
    },
    "unknown_preset": {
        "en": "Unknown preset \"{value}\". {hint}",
        "zh": "没有名为“{value}”的预设模型。{hint}",
    },
    "not_integer": {
        "en": "{key} must be a whole number, got {value}.",
        "zh": "{key} 必须是整数（当前为 {value}）。",
    },
    "not_boolean": {
        "en": "{key} must be true or false, got {value}.",
        "zh": "{key} 必须是 true 或 false（当前为 {value}）。",
    },
    "negative": {
        "en": "{key} cannot be negative (got {value}).",
        "zh": "{key} 不能为负数（当前为 {value}）。",
    },
    "zero": {
        "en": "{key} must be at least 1 (got 0).",
        "zh": "{key} 不能为 0，至少为 1。",
    },
    "too_large": {
        "en": "{key} is larger than this calculator accepts (got {value}, at most {maximum}).",
        "zh": "{key} 超出了计算器允许的范围（当前为 {value}，最大 {maximum}）。",
    },
    "total_too_large": {
        "en": "The model would have {value} parameters; this calculator stops at {maximum}.",
        "zh": "该模型的参数量为 {value}，超出了计算器的上限 {maximum}。",
    },
    "heads_not_divisor": {
        "en": "{hidden_key} ({hidden}) must be divisible by {heads_key} ({heads}); Hugging Face rejects this config.",
        "zh": "{hidden_key}（{hidden}）必须能被 {heads_key}（{heads}）整除；Hugging Face 会拒绝这个配置。",
    },
    "pooler_fixed": {
        "en": "{architecture} {has}, whatever the switch says; the pooler switch only applies to the base model.",
        "zh": "{architecture} {has}，无法切换；池化层开关只对基础模型有效。",
    },
    "labels_fixed": {
        "en": "{architecture} needs num_labels = {required} (got {value}); Hugging Face rejects other values.",
        "zh": "{architecture} 要求 num_labels = {required}（当前为 {value}）；Hugging Face 不接受其他取值。",
    },
    "padding_idx": {
        "en": "{key} ({value}) must be larger than pad_token_id ({pad}): the padding row has to exist in the table.",
        "zh": "{key}（{value}）必须大于 pad_token_id（{pad}）：填充行必须在嵌入表之内。",
    },
    "vocab_mismatch": {
        "en": "Sharing source and target embeddings needs equal vocabularies (n_src_vocab {src} ≠ n_tgt_vocab {tgt}).",
        "zh": "源端和目标端共享词嵌入时两个词表必须一样大（n_src_vocab {src} ≠ n_tgt_vocab {tgt}）。",
    },
    "bad_fraction": {
        "en": "{key} must be a number between 0 and 1 (got {value}).",
        "zh": "{key}必须在 0 到 1 之间（当前为 {value}）。",
    },
    "bad_value": {
        "en": "{key} has an unsupported value: {value}.",
        "zh": "{key} 的取值不受支持：{value}。",
    },
    # The trainable-parameter planner (calculator/peft.py): LoRA as peft applies it, and freezing.
    "lora_family": {
        "en": "LoRA is planned for transformers models only; {model_type} is not one.",
        "zh": "LoRA 规划只适用于 transformers 模型，{model_type} 不是。",
    },
    "lora_rank": {
        "en": "The LoRA rank r must be a whole number of at least 1 (got {value}).",
        "zh": "LoRA 的秩 r 必须是不小于 1 的整数（当前为 {value}）。",
    },
    "lora_bias": {
        "en": "bias must be none, all or lora_only (got {value}).",
        "zh": "bias 只能是 none、all 或 lora_only（当前为 {value}）。",
    },
    "lora_task_type": {
        "en": "task_type must be SEQ_CLS, TOKEN_CLS or QUESTION_ANS, or left out (got {value}).",
        "zh": "task_type 只能是 SEQ_CLS、TOKEN_CLS 或 QUESTION_ANS，也可以不填（当前为 {value}）。",
    },
    "lora_targets_required": {
        "en": "Name at least one module for LoRA to adapt (target_modules), e.g. {available}.",
        "zh": "请至少指定一个要加 LoRA 的模块（target_modules），例如 {available}。",
    },
    "lora_target_missing": {
        "en": "{architecture} has no module \"{value}\" (peft matches a module's full name or its last parts). "
        "Modules LoRA can adapt here: {available}.",
        "zh": "{architecture} 中没有模块“{value}”（peft 按模块的完整名称或名称末尾的若干段匹配）。"
        "这里可以加 LoRA 的模块有：{available}。",
    },
    "lora_no_linear": {
        "en": "{architecture} has no nn.Linear module, so all-linear gives LoRA nothing to adapt.",
        "zh": "{architecture} 中没有 nn.Linear 模块，all-linear 找不到可以加 LoRA 的地方。",
    },
    "lora_target_unsupported": {
        "en": "\"{value}\" matches {module}, which is not an nn.Linear, nn.Embedding or nn.Conv1d, so LoRA cannot adapt it "
        "(peft: \"Target module ... is not supported\").",
        "zh": "“{value}”匹配到的 {module} 不是 nn.Linear、nn.Embedding 或 nn.Conv1d，无法加 LoRA"
        "（peft 会报错“Target module ... is not supported”）。",
    },
    "lora_target_saved": {
        "en": "{module} is both a LoRA target and in modules_to_save ({saved}); peft cannot do both. "
        "Leave it out of target_modules or out of modules_to_save.",
        "zh": "{module} 既是 LoRA 的目标模块，又在 modules_to_save（{saved}）之中，peft 无法同时做到。"
        "请把它从 target_modules 或 modules_to_save 中去掉。",
    },
    "modules_to_save_missing": {
        "en": "modules_to_save: {architecture} has no module whose name ends with \"{value}\".",
        "zh": "modules_to_save：{architecture} 中没有名称以“{value}”结尾的模块。",
    },
    "module_name": {
        "en": "{key}: \"{value}\" is not a module name (letters, digits, _ and . only, e.g. classifier).",
        "zh": "{key}：“{value}”不是模块名（只能由字母、数字、_ 和 . 组成，例如 classifier）。",
    },
    "modules_to_save_nested": {
        "en": "modules_to_save would wrap {inner} inside {outer}, a copy inside a copy; keep only one of them.",
        "zh": "modules_to_save 会把 {outer} 和其中的 {inner} 各包装一次，副本里再套副本；请只保留其中一个。",
    },
    "plan_conflict": {
        "en": "LoRA and freezing exclude each other: peft freezes the base model itself. Clear one of them.",
        "zh": "LoRA 和手动冻结不能同时使用：peft 会自己冻结基础模型。请清空其中一项。",
    },
    "freeze_layers": {
        "en": "The model has {layers} layers; it cannot freeze the first {value}.",
        "zh": "模型只有 {layers} 层，无法冻结前 {value} 层。",
    },
    "derived_key": {
        "en": "{key} is worked out from {source} for this model type, and transformers refuses a config that sets it "
        "(got {value}). Leave {key} out and set {source}.",
        "zh": "这种模型的 {key} 由 {source} 推算得出，transformers 不接受在配置中直接设置它（当前为 {value}）。"
        "请删掉 {key}，改为设置 {source}。",
    },
    "lora_conv_groups": {
        "en": "{module} is a convolution with groups = {groups}; peft's LoRA needs a rank r it divides (got {value}).",
        "zh": "{module} 是分组数为 {groups} 的卷积；peft 要求 LoRA 的秩 r 能被分组数整除（当前为 {value}）。",
    },
    # What a training step costs (calculator/costs/).
    "costs_not_positive": {
        "en": "{key} must be a whole number of at least 1 (got {value}).",
        "zh": "{key} 必须是不小于 1 的整数（当前为 {value}）。",
    },
    # The reader's own name for a result (the page's label= / its field): a name, not a document.
    "label_too_long": {
        "en": "The label is {length} characters long; at most {maximum} are accepted.",
        "zh": "名称长度为 {length} 个字符，最多只能有 {maximum} 个字符。",
    },
    "costs_seq_too_long": {
        "en": "The sequence length {value} is longer than the position table allows ({maximum} tokens); "
        "the model cannot run on it.",
        "zh": "序列长度 {value} 超出了位置嵌入表所能容纳的长度（{maximum} 个 token），模型无法运行。",
    },
    "costs_dtype": {
        "en": "dtype must be {choices} (got {value}).",
        "zh": "dtype 只能是 {choices}（当前为 {value}）。",
    },
    "costs_optimizer": {
        "en": "Unknown optimizer {value}; choose one of {supported}.",
        "zh": "不支持的优化器 {value}；可选：{supported}。",
    },
    "costs_mixed_precision": {
        "en": "Mixed precision must be off or {choices} (got {value}).",
        "zh": "混合精度只能是关闭或 {choices}（当前为 {value}）。",
    },
    "costs_autocast_dtype": {
        "en": "Mixed precision {value} keeps the weights in float32 and runs autocast around the forward; "
        "with dtype {dtype} the model is already cast whole. Choose one: dtype fp32 with mixed precision {value}, "
        "or dtype {dtype} without it.",
        "zh": "混合精度 {value} 让权重保持 float32，只在前向传播外层套 autocast；而 dtype {dtype} 已把整个模型转换过了。"
        "请二选一：dtype fp32 加混合精度 {value}，或 dtype {dtype} 不加混合精度。",
    },
    "costs_autocast_family": {
        "en": "The training step of {model_type} under autocast has not been checked against PyTorch yet, and this "
        "calculator does not guess; run it without mixed precision. Checked under autocast: {supported}.",
        "zh": "{model_type} 在 autocast 下的训练一步还没有与 PyTorch 核对过，计算器不做估算；请关闭混合精度。"
        "已在 autocast 下核对：{supported}。",
    },
    "costs_family": {
        "en": "The training-step cost of {model_type} is not worked out yet, and this calculator does not guess. "
        "Exact for: {supported}.",
        "zh": "尚未推导 {model_type} 训练一步的开销，计算器不做估算。已精确支持：{supported}。",
    },
    "costs_architecture": {
        "en": "The training step of {architecture} is not the one defined here (input_ids of shape B × L only), "
        "so its cost is not worked out.",
        "zh": "{architecture} 的训练步骤与这里的定义不同（这里的输入只有形状为 B × L 的 input_ids），因此不计算它的开销。",
    },
    "costs_lora_embedding": {
        "en": "The training-step cost with LoRA on an embedding ({module}) is not worked out yet; "
        "adapt Linear modules only.",
        "zh": "尚未推导对嵌入层（{module}）加 LoRA 时训练一步的开销；请只对 Linear 模块加 LoRA。",
    },
    "costs_no_checkpointing": {
        "en": "{architecture} does not support gradient checkpointing (transformers raises); run it without.",
        "zh": "{architecture} 不支持梯度检查点（transformers 会报错），请关闭该选项。",
    },
    "costs_attention": {
        "en": "Attention must be {choices} (got {value}).",
        "zh": "注意力实现只能是 {choices}（当前为 {value}）。",
    },
    "costs_no_sdpa": {
        "en": "{architecture} has no SDPA attention in transformers 5.23 (its class does not support "
        "attn_implementation=\"sdpa\"); choose eager attention.",
        "zh": "transformers 5.23 中 {architecture} 没有 SDPA 注意力（该类不支持 attn_implementation=\"sdpa\"），请选择 eager。",
    },
    "costs_sdpa_not_modelled": {
        "en": "{architecture} supports SDPA, but its training step with SDPA is not worked out yet, and this "
        "calculator does not guess; choose eager attention. SDPA is exact for: {supported}.",
        "zh": "{architecture} 支持 SDPA，但它用 SDPA 时的训练开销还没有算出，这里不做估算，请选择 eager。"
        "已精确支持 SDPA 的有：{supported}。",
    },
    "costs_nothing_trainable": {
        "en": "Nothing trains, so there is no backward pass: loss.backward() fails when no parameter needs a gradient.",
        "zh": "没有可训练的参数，也就没有反向传播：没有参数需要梯度时 loss.backward() 会报错。",
    },
    "costs_qa_token_types": {
        "en": "{architecture} makes token_type_ids itself from the question's length (type 1 for the context), "
        "so with {value} token type(s) (type_vocab_size) its forward fails on an index out of range "
        "for any input longer than one token. Set type_vocab_size to at least 2.",
        "zh": "{architecture} 会根据问题长度自行生成 token_type_ids（上下文部分为类型 1），"
        "因此 type_vocab_size 为 {value} 时，只要输入超过 1 个 token，前向计算就会因索引越界而报错。"
        "请把 type_vocab_size 设为不小于 2。",
    },
    "costs_longformer_window": {
        "en": "Longformer pads the input to a multiple of its largest attention_window ({largest}): "
        "L = {value} becomes {padded} tokens, which layer {layer}'s window of {window} does not divide, "
        "so transformers stops with an assertion and there is no step to cost. "
        "Choose windows that each divide the largest one.",
        "zh": "Longformer 会把输入补齐到最大 attention_window（{largest}）的整数倍：L = {value} 补齐后为 {padded} 个 token，"
        "而第 {layer} 层的窗口 {window} 不能整除它，transformers 会因断言失败而中止，也就没有可计算的训练步骤。"
        "请让每层的窗口都能整除最大的窗口。",
    },
    "costs_keras": {
        "en": "keras-bert builds a Keras (TensorFlow) model, and the training step here is defined and checked in "
        "PyTorch: the tensors autograd keeps for the backward and the FLOPs torch's FlopCounterMode counts. "
        "TensorFlow's gradient tape keeps other tensors and runs other kernels, so a PyTorch figure would not be "
        "this model's cost, and this calculator does not guess. Its parameter counts are exact all the same.",
        "zh": "keras-bert 构建的是 Keras（TensorFlow）模型，而这里的训练步骤是按 PyTorch 定义和验证的："
        "autograd 为反向传播保存的张量，以及 torch 的 FlopCounterMode 统计的 FLOPs。"
        "TensorFlow 的 GradientTape 保存的张量、调用的算子都不一样，用 PyTorch 的数字来代表它并不成立，计算器也不做估算。"
        "它的参数量仍是精确的。",
    },
    "costs_seq2seq": {
        "en": "The 2018 Transformer is an encoder-decoder: its forward takes four tensors (source and target tokens and "
        "their positions) and it is trained with a cross-entropy over the target words, while the step here is an "
        "encoder's with input_ids of shape B × L only. Its repository's forward and loss are not what this "
        "calculator checks against PyTorch, so no step is defined for it and no cost is guessed. Its parameter "
        "counts are exact all the same.",
        "zh": "2018 年的 Transformer 是编码器-解码器结构：前向计算要输入四个张量（源端、目标端的 token 及各自的位置），"
        "训练时对目标端单词算交叉熵；而这里定义的训练步骤是编码器的，输入只有形状为 B × L 的 input_ids。"
        "计算器没有把这个实现的前向计算和损失函数与 PyTorch 逐项核对过，因此不为它定义训练步骤，也不估算开销。"
        "它的参数量仍是精确的。",
    },
    "costs_hidden_act": {
        "en": "The training step with hidden_act = {value} is not worked out (each activation keeps different tensors "
        "for its backward), and this calculator does not guess. Covered for this model: {supported}.",
        "zh": "hidden_act = {value} 时训练一步的开销尚未推导（不同激活函数为反向传播保存的张量不同），计算器不做估算。"
        "这种模型已支持：{supported}。",
    },
    "costs_longformer_small_window": {
        "en": "An attention_window of 2 (layer {layer}) cannot run in transformers' sliding-window attention: "
        "with a one-token overlap its slice [1 - w:] takes the whole row and the copy fails, so there is no step "
        "to cost. Use a window of 4 or more.",
        "zh": "attention_window 为 2（第 {layer} 层）时，transformers 的滑动窗口注意力无法运行：单侧重叠只有 1 个 token，"
        "切片 [1 - w:] 会取到整行，赋值时形状不符而报错，也就没有可计算的训练步骤。请把窗口设为 4 或更大。",
    },
    "costs_longformer_no_layers": {
        "en": "A Longformer with no layers cannot run a forward pass: transformers pads the input to the largest "
        "attention_window of its layers, and with no layers there is none (max() of an empty list fails).",
        "zh": "没有任何层的 Longformer 无法执行前向计算：transformers 要按各层中最大的 attention_window 补齐输入，"
        "没有层也就没有窗口（对空列表求 max() 会报错）。",
    },
    "costs_data_dependent": {
        "en": "The cost of {architecture} depends on the tokens themselves, not only on B and L: it gives global "
        "attention to the question, found by the separator tokens in input_ids (and refuses an input without "
        "exactly three of them), so no figure holds for every input of this shape.",
        "zh": "{architecture} 的开销取决于输入的具体 token，而不只是 B 和 L：它根据 input_ids 中的分隔符找出问题部分并给它加全局注意力"
        "（分隔符不是恰好三个时直接报错），因此同样形状的输入也没有统一的开销数字。",
    },
    "costs_step_value": {
        "en": "The training step of {model_type} is worked out for {key} {modelled} only (got {value}): another value "
        "changes which tensors autograd keeps, and this calculator does not guess. Parameter counts are unaffected.",
        "zh": "{model_type} 的训练开销目前只推导了 {key} {modelled} 的情况（当前为 {value}）：取值不同，autograd 为反向传播"
        "保存的张量也不同，计算器不做估算。参数量不受影响。",
    },
    "costs_widths": {
        "en": "{module} takes inputs {expected} wide, but this config gives it {got}-wide ones: the layer widths do not "
        "fit together. transformers builds such a model, but its forward pass fails (or runs only by broadcasting or "
        "reshaping numbers across tokens), so its training step is not costed. Make the widths agree.",
        "zh": "{module} 的输入宽度应为 {expected}，按这个配置却是 {got}：各层宽度对不上。"
        "transformers 能构建这样的模型，但前向计算会报错（或只能靠广播、跨 token 重排数据勉强跑通），因此不计算它的训练开销。请让各宽度一致。",
    },
    "costs_no_ffn": {
        "en": "With num_feedforward_networks = 0, MobileBertLayer still loops over its extra feed-forward networks "
        "(self.ffn), which it never built, so the forward pass fails in PyTorch: there is no training step to cost. "
        "Use at least 1.",
        "zh": "num_feedforward_networks = 0 时，MobileBertLayer 仍会遍历额外的前馈网络（self.ffn），但它根本没有创建这个属性，"
        "PyTorch 前向计算直接报错，因此没有训练步骤可算。请至少设为 1。",
    },
    "costs_lora_conv": {
        "en": "The training-step cost with LoRA on {module}, a convolution of kernel size {kernel}, is not worked out "
        "yet; adapt Linear modules (or 1×1 convolutions) only.",
        "zh": "尚未推导对 {module}（卷积核大小为 {kernel} 的卷积）加 LoRA 时训练一步的开销；"
        "请只对 Linear 模块（或 1×1 卷积）加 LoRA。",
    },
    "costs_even_kernel": {
        "en": "conv_kernel_size = {value} is even: the convolution then outputs L + 1 positions and its unfold L − 1, "
        "so ConvBERT's forward pass fails in PyTorch and there is no training step to cost. Use an odd size.",
        "zh": "conv_kernel_size = {value} 是偶数：此时卷积输出 L + 1 个位置，而 unfold 只输出 L − 1 个，"
        "ConvBERT 的前向计算在 PyTorch 中会报错，因此没有训练步骤可算。请使用奇数。",
    },
    "costs_funnel_short": {
        "en": "With L = {value} tokens, Funnel's relative positions for block {block} fall outside its sinusoid table or "
        "do not cover the keys, so the forward pass fails in PyTorch: there is no training step to cost. "
        "Use a longer sequence or fewer blocks.",
        "zh": "序列长度 L = {value} 时，Funnel 第 {block} 块的相对位置超出了正弦位置表，或覆盖不了全部 key，"
        "PyTorch 前向计算会报错，因此没有训练步骤可算。请加长序列或减少块数。",
    },
    "costs_funnel_empty_block": {
        "en": "Block {block} of block_sizes has no layers but a later block has: the encoder pools the attention masks "
        "for the empty block but not the hidden states, so the forward pass fails in PyTorch and there is no training "
        "step to cost.",
        "zh": "block_sizes 中第 {block} 块没有层，而后面的块有层：编码器会为这个空块池化注意力掩码，却不池化隐藏状态，"
        "PyTorch 前向计算因此报错，没有训练步骤可算。",
    },
    "costs_funnel_decoder_input": {
        "en": "FunnelModel's decoder adds the first block's last output at full length (hidden_states[block_sizes[0]]); "
        "with {value} there is none, so transformers' forward pass fails (an index or a size mismatch) and there is "
        "no training step to cost. Give the first block at least one layer run, or use FunnelBaseModel.",
        "zh": "FunnelModel 的解码器要加上第一个块最后一层的全长输出（hidden_states[block_sizes[0]]）；"
        "{value} 时没有这个输出，transformers 的前向计算会报错（索引越界或尺寸不匹配），因此没有训练步骤可算。"
        "请让第一个块至少运行一层，或改用 FunnelBaseModel。",
    },
    "costs_too_large": {
        "en": "One training step's {key} would be {value}, more than 2^53 − 1 = 9,007,199,254,740,991, the largest "
        "whole number a JavaScript or JSON reader keeps exact. Use a smaller batch or sequence length.",
        "zh": "训练一步的 {key} 将达到 {value}，超过 2^53 − 1 = 9,007,199,254,740,991，"
        "即 JavaScript 和 JSON 读取端能精确表示的最大整数。请减小批大小或序列长度。",
    },
    "out_of_memory": {
        "en": "The calculator ran out of memory on this input. Please report the command that caused it.",
        "zh": "计算器处理这个输入时内存不足。请报告引起问题的命令。",
    },
    "internal": {
        "en": "Something went wrong inside the calculator ({kind}). Please report the command that caused it.",
        "zh": "计算器内部出错（{kind}）。请报告引起问题的命令。",
    },
    "costs_forward_fails": {
        "en": "transformers' own forward pass fails with {key} = {value} in this configuration, so there is "
        "no training step or inference pass whose cost could be worked out.",
        "zh": "在这个配置下（{key} = {value}），transformers 自己的前向计算就会报错，训练步骤和推理都无从计算开销。",
    },
    "costs_checkpointing_fails": {
        "en": "Gradient checkpointing with use_reentrant=True fails here: every layer's "
        "recomputation runs a backward through {module}, which is computed once before the layers, and the second "
        "one fails in PyTorch (\"Trying to backward through the graph a second time\"). It fails only with "
        "use_reentrant=True: transformers 5.23's default, use_reentrant=False (gradient_checkpointing_enable() "
        "without arguments, Trainer's gradient_checkpointing=True), trains this model: choose non-reentrant "
        "checkpointing (--grad-checkpointing without a value, ckpt=1 in a link).",
        "zh": "按 use_reentrant=True 运行梯度检查点在这里会失败：每一层重算后都要经过 {module} 做一次反向传播，"
        "而它只在所有层之前算一次；第二次反向传播时 PyTorch 会报错（“Trying to backward through the graph a second time”）。"
        "只有 use_reentrant=True 才会失败：transformers 5.23 的默认值 use_reentrant=False"
        "（不带参数调用 gradient_checkpointing_enable()，或 Trainer 的 gradient_checkpointing=True）可以正常训练这个模型："
        "请选择非重入式梯度检查点（--grad-checkpointing 不带值，或链接中的 ckpt=1）。",
    },
    "costs_checkpointing_mode": {
        "en": "Gradient checkpointing is off, non-reentrant (use_reentrant=False, transformers' default) or reentrant "
        "(use_reentrant=True), not {value}; choose one of {choices}.",
        "zh": "梯度检查点只能是关闭、非重入式（use_reentrant=False，transformers 的默认值）或重入式（use_reentrant=True），"
        "不能是 {value}；可选：{choices}。",
    },
    "costs_xmod_language": {
        "en": "X-MOD sends every input through one language's adapter, and input_ids alone name none: "
        "set default_language to one of its {count} adapters ({languages}{more}), as set_default_language() does (got {value}; "
        "transformers raises without it). The cost is the same whichever language it is.",
        "zh": "X-MOD 的每条输入都要经过某一种语言的适配器，而只给 input_ids 时并没有指定语言："
        "请把 default_language 设为它的 {count} 个适配器之一（{languages}{more}），相当于调用 set_default_language()"
        "（当前为 {value}；不设置时 transformers 会报错）。选哪种语言，开销都一样。",
    },
    "costs_xmod_no_layers": {
        "en": "An X-MOD without layers cannot run on input_ids alone: XmodModel looks the default language up "
        "among layer 0's adapters, and there is no layer 0 (transformers raises IndexError).",
        "zh": "没有编码层的 X-MOD 无法只凭 input_ids 运行：XmodModel 要在第 0 层的适配器里查找默认语言，"
        "而第 0 层并不存在（transformers 会抛出 IndexError）。",
    },
    "costs_esmc_head_dim": {
        "en": "ESM C normalises the whole query and key projections with LayerNorms of hidden_size numbers, so "
        "head_dim × num_attention_heads must equal hidden_size; it is {head_size} × {heads}, not {hidden}, and "
        "transformers fails on the first forward pass.",
        "zh": "ESM C 用宽度为 hidden_size 的 LayerNorm 对整个 query、key 投影做归一化，因此 head_dim × num_attention_heads "
        "必须等于 hidden_size；当前为 {head_size} × {heads}，不等于 {hidden}，transformers 在第一次前向传播时就会报错。",
    },
    "costs_kv_heads": {
        "en": "Grouped-query attention repeats each key/value head num_attention_heads / num_key_value_heads times, "
        "so num_key_value_heads must divide num_attention_heads; {kv_heads} does not divide {heads}, and "
        "transformers fails on the first forward pass.",
        "zh": "分组查询注意力（GQA）把每个键/值头重复 num_attention_heads / num_key_value_heads 次，因此 num_attention_heads "
        "必须能被 num_key_value_heads 整除；当前 {heads} 不能被 {kv_heads} 整除，transformers 在第一次前向传播时就会报错。",
    },
    "costs_rotary_odd_head": {
        "en": "Rotary positions rotate a head's numbers in pairs, so the head size (hidden_size / num_attention_heads) "
        "must be even; it is {head_size}, and transformers fails on the first forward pass.",
        "zh": "旋转位置编码把每个注意力头的向量按维度两两配对旋转，因此每个头的维度（hidden_size / num_attention_heads）必须是偶数；"
        "当前为 {head_size}，transformers 在第一次前向传播时就会报错。",
    },
    "costs_esm_padding": {
        "en": "ESM computes position ids from pad_token_id on every forward pass (whatever the position type), "
        "so with no pad_token_id it cannot run on input_ids (transformers raises); set it (1 in ESM-2).",
        "zh": "ESM 每次前向传播都要根据 pad_token_id 计算位置编号（与位置编码类型无关），"
        "没有 pad_token_id 就无法只凭 input_ids 运行（transformers 会报错）；请设置它（ESM-2 中为 1）。",
    },
    "costs_esm_mask_token": {
        "en": "token_dropout rescales the embeddings by the share of mask tokens, so it needs mask_token_id; "
        "without it transformers fails on input_ids. Set mask_token_id (32 in ESM-2) or turn token_dropout off.",
        "zh": "token_dropout 按掩码 token 所占比例缩放嵌入，因此需要 mask_token_id；"
        "缺少它时 transformers 处理 input_ids 会报错。请设置 mask_token_id（ESM-2 中为 32），或关闭 token_dropout。",
    },
    "costs_cuda_kernel": {
        "en": "{model_type}'s attention runs only through custom CUDA kernels; on a CPU, without them, transformers "
        "returns zeros in its place, so the step PyTorch runs there is not this model's and its cost is not worked "
        "out. Its parameter counts are exact all the same.",
        "zh": "{model_type} 的注意力只能用自定义的 CUDA kernel 计算；在 CPU 上没有这些 kernel，transformers 会直接用全零代替注意力的输出，"
        "这时 PyTorch 跑的并不是这个模型真正的训练一步，因此不计算它的开销。参数量不受影响，仍是精确值。",
    },
    "costs_block_padding": {
        "en": "At sequence length {value} BigBird runs its block-sparse attention, which first pads the input "
        "to {padded} tokens (a multiple of block_size = {block}); the position table holds only {maximum} "
        "positions, so transformers' forward fails. The longest input that runs is {longest} tokens.",
        "zh": "序列长度为 {value} 时 BigBird 使用块稀疏注意力，会先把输入补齐到 {padded} 个 token"
        "（block_size = {block} 的整数倍）；位置嵌入表只有 {maximum} 个位置，transformers 的前向计算会报错。"
        "能运行的最长输入为 {longest} 个 token。",
    },
    "costs_nystrom_length": {
        "en": "Nyströmformer's landmarks are the means of {landmarks} segments of segment_means_seq_len // num_landmarks "
        "positions, reshaped from the queries and keys as if every sequence had {expected} tokens; with L = {value} "
        "that reshape fails in PyTorch or mixes the sequences of the batch, so the step is costed at L = {expected} "
        "only (num_landmarks = {landmarks}, segment_means_seq_len = {seq_len}). Pad the input to {expected} tokens.",
        "zh": "Nyströmformer 的地标点是 {landmarks} 个分段的均值，每段 segment_means_seq_len // num_landmarks 个位置；"
        "它按每条序列恰有 {expected} 个 token 的假定重排 query 和 key。L = {value} 时，这次重排在 PyTorch 中会报错，"
        "或者把同一批里不同序列的数据混在一起，因此只在 L = {expected} 时计算训练开销"
        "（num_landmarks = {landmarks}，segment_means_seq_len = {seq_len}）。请把输入补齐到 {expected} 个 token。",
    },
    "costs_reformer_length": {
        "en": "Reformer runs only at lengths its forward accepts: with axial positions exactly the product of "
        "axial_pos_shape ({axial}; - without them) in training, at most that product at inference, and, past the "
        "shortest chunk ({shortest}), a multiple of the chunk lengths' least common multiple ({lcm}). L = {value} is "
        "not such a length: transformers raises a ValueError (at inference it pads a length that is no such multiple, "
        "which is not modelled), so there is no figure to give.",
        "zh": "Reformer 只在其前向传播接受的序列长度上运行：使用轴向位置编码时，训练要求恰好等于 axial_pos_shape 各维之积"
        "（{axial}；不使用时为 -），推理要求不超过该乘积；超过最短分块长度（{shortest}）时，还必须是各分块长度最小公倍数"
        "（{lcm}）的整数倍。L = {value} 不满足：transformers 会抛出 ValueError（推理时它会把不是该倍数的长度填充，"
        "此情形未建模），因此无从给出数值。",
    },
    # A model id read from the Hugging Face Hub (calculator/hub.py): the CLI's --model.
    "hub_bad_id": {
        "en": "\"{value}\" is not a Hub model id: write owner/name (google-bert/bert-base-uncased), "
        "owner/name@revision, or the model's address on huggingface.co.",
        "zh": "“{value}”不是 Hub 上的模型名：请写成 owner/name（如 google-bert/bert-base-uncased）、"
        "owner/name@版本，或模型在 huggingface.co 上的网址。",
    },
    "hub_not_found": {
        "en": "{endpoint} has no model {repo} at revision {revision} (HTTP {status}, reading {file}). "
        "Check the id and the revision; a private repo needs a token (HF_TOKEN), or paste its config.json.",
        "zh": "{endpoint} 上找不到版本为 {revision} 的模型 {repo}（读取 {file} 时返回 HTTP {status}）。"
        "请检查模型名和版本；私有仓库需要令牌（HF_TOKEN），也可以直接粘贴它的 config.json。",
    },
    "hub_gated": {
        "en": "{repo} is gated: its files can be read only with a token that was granted access (HTTP {status}). "
        "{public}Set HF_TOKEN to such a token, or paste its config.json.",
        "zh": "{repo} 是受限仓库：只有获准访问的令牌才能读取其中的文件（HTTP {status}）。"
        "{public}请把 HF_TOKEN 设为这样的令牌，或者直接粘贴它的 config.json。",
    },
    "hub_unreachable": {
        "en": "Could not read the Hub at {endpoint}: {why}. Check the connection, --endpoint or HF_ENDPOINT; "
        "a pasted config.json works offline.",
        "zh": "无法读取 {endpoint} 上的 Hub：{why}。请检查网络连接、--endpoint 或 HF_ENDPOINT；"
        "粘贴 config.json 不需要联网。",
    },
    "hub_no_config": {
        "en": "{repo} at {revision} has no config.json, so there is nothing to count from. "
        "Paste the config.json of the model it was made from.",
        "zh": "{repo}（版本 {revision}）中没有 config.json，无从计算。请粘贴它所基于的模型的 config.json。",
    },
    "hub_bad_header": {
        "en": "{file} in {repo} is not a safetensors file this calculator can read: {why}.",
        "zh": "{repo} 中的 {file} 不是计算器能读取的 safetensors 文件：{why}。",
    },
    "peak_not_modelled": {
        "en": "No peak of live memory for this step yet: the engine gives the peak only where it is proven exact "
        "against PyTorch (the optimizer step, when it provably exceeds the forward and the backward), and "
        "here it is not ({reason}). The four components above are not a peak.",
        "zh": "这一步暂不给出显存峰值：计算器只在峰值已与 PyTorch 核对、可证明精确时才给出（即峰值出现在优化器更新阶段，"
        "且可证明高于前向和反向传播），这里不满足（{reason}）。上面四个部分之和并不是峰值。",
    },
    "peak_budget": {
        "en": "The memory budget must be more than 0 GiB; {value} is not.",
        "zh": "显存预算必须大于 0 GiB（当前为 {value}）。",
    },
    "peak_budget_below_weights": {
        "en": "A budget of {budget} bytes is less than the weights alone ({weights} bytes): no batch fits.",
        "zh": "显存预算 {budget} 字节，比权重本身（{weights} 字节）还小：批大小取多少都放不下。",
    },
    "costs_tflops": {
        "en": "The GPU's peak TFLOPS must be a number greater than 0 and at most {maximum}; {value} is not.",
        "zh": "GPU 的峰值 TFLOPS 必须是大于 0、不超过 {maximum} 的数；{value} 不是。",
    },
    "costs_embed_too_large": {
        "en": "Embedding {passages} passages would take {value} FLOPs, more than 2^53 − 1 = 9,007,199,254,740,991, the "
        "largest whole number a JavaScript or JSON reader keeps exact. Use fewer passages.",
        "zh": "为 {passages} 段文本生成嵌入需要 {value} FLOPs，超过 2^53 − 1 = 9,007,199,254,740,991，"
        "即 JavaScript 或 JSON 读取方能精确保存的最大整数。请减少文本段数。",
    },
    "costs_mode": {
        "en": "What to cost must be \"train\" (a training step) or \"inference\" (embedding N passages); {value} is neither.",
        "zh": "计算什么只能是“train”（训练一步）或“inference”（为 N 段文本生成嵌入）；{value} 都不是。",
    },
    "costs_inference_plan": {
        "en": "Inference costs the model as built, without a LoRA or freezing plan (peft's adapters change the forward); "
        "clear the plan above to cost inference, or choose the training step.",
        "zh": "推理按构建出的模型计算，不带 LoRA 或冻结方案（peft 的适配器会改变前向传播）；请清除上方的方案再计算推理，或改为计算训练一步。",
    },
    "costs_inference_option": {
        "en": "{option} is an option of a training step; inference (model.eval(), one forward under torch.no_grad()) "
        "has no optimizer, no backward and trains nothing, so it is refused rather than ignored. Leave {option} out, "
        "or drop --inference for a training step.",
        "zh": "{option} 是训练步的选项；推理（model.eval()，在 torch.no_grad() 下做一次前向传播）没有优化器、"
        "没有反向传播，也不训练任何参数，因此计算器拒绝而不是忽略它。请去掉 {option}，或去掉 --inference 计算训练步。",
    },
}

#: Why the Hub could not be read or a file not parsed (``reason`` of ``hub_unreachable`` / ``hub_bad_header``).
HUB_WHY: dict[str, dict[str, str]] = {
    "connection": {"en": "no connection ({detail})", "zh": "无法连接（{detail}）"},
    "timeout": {"en": "no answer in {detail} seconds", "zh": "{detail} 秒内没有响应"},
    "status": {"en": "it answered HTTP {status}", "zh": "服务器返回 HTTP {status}"},
    "not_api": {"en": "the answer was not the Hub API's model information", "zh": "返回的内容不是 Hub API 的模型信息"},
    "endpoint": {"en": "it is not an http(s) address", "zh": "这不是 http(s) 网址"},
    "too_long": {"en": "its header is {detail} bytes long, over the 25,000,000 that huggingface_hub reads",
                 "zh": "文件头长 {detail} 字节，超过了 huggingface_hub 读取的上限 25,000,000"},
    "not_json": {"en": "its header is not a JSON object", "zh": "文件头不是 JSON 对象"},
    "entry": {"en": "the header's entry {detail} has no dtype and shape", "zh": "文件头中的条目 {detail} 缺少 dtype 或 shape"},
    "offsets": {"en": "the data_offsets of {detail} lie outside the file or do not match its shape",
                "zh": "{detail} 的 data_offsets 超出了文件范围，或与其形状不符"},
    "short": {"en": "the file ends inside its header", "zh": "文件在文件头之内就结束了"},
    "range": {"en": "the server answered another byte range than the one asked for", "zh": "服务器返回的字节范围与请求的不同"},
    "index": {"en": "its weight_map is not a map of tensor names to shard files", "zh": "其中的 weight_map 不是张量名到分片文件的映射"},
}
#: ``hub_gated``: what the Hub shows publicly for a gated repo (its safetensors count), when it does.
HUB_PUBLIC: dict[str, str] = {
    "en": "The Hub's public count for it is {total} parameters (its safetensors files). ",
    "zh": "Hub 公开的参数量为 {total}（按其 safetensors 文件统计）。",
}


#: The Hub's codes as the page says them (issue 33, item 4): the page never asks for a token, offers no
#: --endpoint, and a gated or private repo's way forward is to paste its config.json in the box below.
HUB_PAGE_MESSAGES: dict[str, dict[str, str]] = {
    "hub_not_found": {
        "en": "{endpoint} has no model {repo} at revision {revision} (HTTP {status}, reading {file}). "
        "Check the id and the revision; for a private repo, paste its config.json below.",
        "zh": "{endpoint} 上找不到版本为 {revision} 的模型 {repo}（读取 {file} 时返回 HTTP {status}）。"
        "请检查模型名和版本；私有仓库请在下面粘贴它的 config.json。",
    },
    "hub_gated": {
        "en": "{repo} is gated: its files can be read only by an account that was granted access (HTTP {status}), "
        "and this page sends no token. {public}Paste its config.json below to count it.",
        "zh": "{repo} 是受限仓库：只有获准访问的账号才能读取其中的文件（HTTP {status}），本页面不发送任何令牌。"
        "{public}请在下面粘贴它的 config.json 来计算。",
    },
    "hub_unreachable": {
        "en": "Could not read the Hub at {endpoint}: {why}. Check the connection; a config.json pasted below "
        "works offline.",
        "zh": "无法读取 {endpoint} 上的 Hub：{why}。请检查网络连接；在下面粘贴 config.json 不需要联网。",
    },
}


#: The same codes when the value is empty (a cleared form field, ``""`` in a config):
#: quoting an empty value ("got \"\"") tells nobody what to do.
EMPTY_MESSAGES: dict[str, dict[str, str]] = {
    "not_integer": {"en": "{key} is empty: enter a whole number.", "zh": "{key} 为空：请输入整数。"},
    "not_boolean": {"en": "{key} is empty: enter true or false.", "zh": "{key} 为空：请输入 true 或 false。"},
    "bad_fraction": {"en": "{key} is empty: enter a number between 0 and 1.", "zh": "{key} 为空：请输入 0 到 1 之间的数。"},
    "costs_not_positive": {"en": "{key} is empty: enter a whole number of at least 1.", "zh": "请填写{key}（不小于 1 的整数）。"},
}

#: ``padding_idx`` for a negative ``pad_token_id`` (a row counted from the end of the table):
#: torch's ``nn.Embedding`` asserts ``padding_idx >= -num_embeddings``.
NEGATIVE_PADDING: dict[str, str] = {
    "en": "pad_token_id ({pad}) counts back from the end of the table, so it must be at least -{key} "
    "(-{value}): torch's nn.Embedding refuses a padding row outside the table.",
    "zh": "pad_token_id（{pad}）是从嵌入表末尾倒数的行号，不能小于 -{key}（-{value}）："
    "torch 的 nn.Embedding 不接受嵌入表之外的填充行。",
}

#: What to do about an unknown preset: a few names close to it, else where the whole list is
#: (the page's picker and the CLI's --list-presets list them all).
PRESET_HINTS: dict[str, dict[str, str]] = {
    "close": {"en": "Did you mean {names}?", "zh": "你是不是要找 {names}？"},
    # The page's preset picker, by its label (calculator.api.UI_LABELS["preset"]).
    "page": {
        "en": "Choose one from the \"Start from a published model\" list.",
        "zh": "请在“从公开的预训练模型开始”列表中选择。",
    },
    "cli": {"en": "Run with --list-presets to see them all.", "zh": "加上 --list-presets 可查看全部预设。"},
}
#: The way forward for a model this calculator cannot count: transformers counts any model it can build,
#: from the config alone (``from_config``: nothing downloaded but config.json). The code a checkpoint ships
#: (``auto_map``) runs only with ``trust_remote_code=True``, which ``from_config`` asks for a second time;
#: a model transformers defines needs neither.
ONE_LINER = "AutoModel.from_config(AutoConfig.from_pretrained(NAME)).num_parameters()"
ONE_LINER_CUSTOM = ("AutoModel.from_config(AutoConfig.from_pretrained(NAME, trust_remote_code=True), "
                    "trust_remote_code=True).num_parameters()")
#: T5-style encoder-decoders whose encoder is also used alone: ``AutoModel`` builds the whole encoder-decoder,
#: the encoder is its own class (each exists in transformers 5.23: the cross-check). T5, mT5 and umT5 are
#: families here (their encoder classes are counted), so only the T5-shaped types still refused are left.
ENCODER_CLASSES: dict[str, str] = {"longt5": "LongT5EncoderModel", "switch_transformers": "SwitchTransformersEncoderModel"}
#: Parts of the "not supported" messages.
UNSUPPORTED_WORDS: dict[str, dict[str, str]] = {
    "custom": {
        "en": " The config has auto_map: its model code ships with the checkpoint (custom code, trust_remote_code=True).",
        "zh": "这个配置带有 auto_map：模型代码随 checkpoint 一起发布（自定义代码，需要 trust_remote_code=True）。",
    },
    "one_liner": {
        "en": "To count it with transformers: {code} (NAME: the model's id on the Hub; to build a large model without memory, "
        "run it under with torch.device(\"meta\"):).",
        "zh": "可以用 transformers 直接计算：{code}（NAME 换成模型在 Hub 上的名称；模型很大时可在 with torch.device(\"meta\"): 下构建，不占内存）。",
    },
    "builds": {
        "en": " transformers 5.23 builds {cls} for model_type \"{value}\".",
        "zh": "transformers 5.23 会为 model_type“{value}”构建 {cls}。",
    },
    "encoder": {
        "en": " For the encoder alone (used as a text encoder): {code}; AutoModel builds the whole encoder-decoder, {cls}.",
        "zh": "只要编码器时（用作文本编码器）：{code}；AutoModel 构建的是完整的编码器-解码器 {cls}。",
    },
    "no_code": {
        "en": "transformers 5.23 defines no model_type \"{value}\", and the config names no code of its own (auto_map), "
        "so transformers cannot build it from this config either: look for the model's own code where it is published.",
        "zh": "transformers 5.23 没有定义 model_type“{value}”，配置里也没有指明自带的模型代码（auto_map），"
        "因此 transformers 也无法根据这个配置构建它：请到模型发布的地方查找它自己的代码。",
    },
    "assumed": {
        "en": " (the config has no model_type, so BERT was assumed)",
        "zh": "（配置中没有 model_type，按 BERT 处理）",
    },
}


def one_liner(model_type: Any, custom: bool, lang: str, known: bool = False) -> str:
    """The way forward after "not supported", for this model_type: the code that counts it with transformers.

    ``custom`` (the config has ``auto_map``): ``trust_remote_code=True``, on ``from_pretrained`` and on
    ``from_config``. A model_type transformers 5.23 defines: plain ``from_config``, naming the class it builds
    (the T5 family's encoder class too). ``known``: the family is this calculator's (an unknown class of it).
    Otherwise transformers cannot build it either, and the message says so rather than offer code that fails.
    """
    from .hf_model_types import AUTO_MODEL_CLASSES

    words = UNSUPPORTED_WORDS
    if custom:
        return pick(words["one_liner"], lang, code=ONE_LINER_CUSTOM)
    if known:
        return pick(words["one_liner"], lang, code=ONE_LINER)
    cls = AUTO_MODEL_CLASSES.get(model_type) if isinstance(model_type, str) else None
    if cls is None:
        return pick(words["no_code"], lang, value=_short(model_type))
    text = pick(words["one_liner"], lang, code=ONE_LINER) + pick(words["builds"], lang, cls=cls, value=model_type)
    encoder = ENCODER_CLASSES.get(model_type)
    if encoder is not None:
        code = f"{encoder}(AutoConfig.from_pretrained(NAME)).num_parameters()"
        text += pick(words["encoder"], lang, code=code, cls=cls)
    return text


class CalcError(ValueError):
    """A user-facing input error: ``code`` is stable, ``message(lang)`` is localized."""

    def __init__(self, code: str, fields: tuple[str, ...] = (), **params: Any) -> None:
        """``fields``: the inputs the error is about, the one its message goes beside first (the
        page marks them all), where the rule that fails names more than its ``key`` or another
        key than the input's (two keys that must divide; ALBERT's groups × layers). Left empty,
        the error is about its ``key`` parameter's input, if any."""
        if code not in MESSAGES:
            raise KeyError(code)
        self.code = code
        self.fields = tuple(fields)
        self.params = params
        super().__init__(self.message("en"))

    def message(self, lang: str = "en", where: str = "cli") -> str:
        """The message in ``lang``; ``where`` ("cli" or "page") is where it is read, for the
        few messages that point the reader somewhere (the page's preset picker, a CLI option)."""
        lang = norm_lang(lang)
        params = dict(self.params)
        if self.code == "unknown_preset":
            params["hint"] = _preset_hint(params.get("close"), lang, where)
        value = params.get("value")
        if isinstance(params.get("name"), dict):
            # A field known to readers by its label, not its query key (the page's
            # active-neuron share is ``active_fraction`` only in the address; B is ``batch``).
            params["key"] = pick(params["name"], lang)
        if self.code in EMPTY_MESSAGES and isinstance(value, str) and not value.strip():
            return pick(EMPTY_MESSAGES[self.code], lang, **params)
        if self.code == "too_large" and type(value) is int:  # a size reads as the site prints numbers: 2,000,000
            params["value"] = f"{value:,}"
        elif "value" in params:
            params["value"] = _short(params["value"])
        if isinstance(params.get("maximum"), int):  # a limit reads as the site prints numbers: 10,000,000
            params["maximum"] = f"{params['maximum']:,}"
        # Lists of names (supported types, modules) read as each language lists them: "a, b" / "a、b".
        for key, item in params.items():
            if key != "value" and isinstance(item, (list, tuple)):
                params[key] = join_choice(item, lang) if key == "choices" else join_list(item, lang)
        if "more" in params:  # a list shown in part: "a, b, …" / "a、b……"
            params["more"] = pick(MORE, lang) if params["more"] else ""
        if "kind" in params:
            kind = pick(KINDS[params["kind"]], lang) if params["kind"] in KINDS else params["kind"]
            # "而不是 null": a space between Chinese and a Latin word, none before 数组.
            params["kind"] = (punct("latin_gap", lang) if kind[:1].isascii() else "") + kind
        if "has_pooler" in params:
            params["has"] = pick(HAS_POOLER[bool(params["has_pooler"])], lang)
        if "detail" in params or "line" in params:
            params["detail"] = _detail(params, lang)
        if self.code == "padding_idx" and isinstance(params.get("pad"), int) and params["pad"] < 0:
            return pick(NEGATIVE_PADDING, lang, **params)
        if self.code.startswith("hub_"):
            why = HUB_WHY.get(str(params.get("reason")))
            params["why"] = pick(why, lang, detail=params.get("detail", ""), status=params.get("status", "")) if why else ""
            total = params.get("total")
            params["public"] = pick(HUB_PUBLIC, lang, total=f"{total:,}") if isinstance(total, int) else ""
        if self.code in ("unknown_model_type", "unknown_architecture"):
            params["custom"] = pick(UNSUPPORTED_WORDS["custom"], lang) if params.get("custom") else ""
            params["one_liner"] = one_liner(params.get("value"), bool(params.get("custom")), lang,
                                            known=self.code == "unknown_architecture")
            params["assumed"] = pick(UNSUPPORTED_WORDS["assumed"], lang) if params.get("assumed") else ""
        if where == "page" and self.code in HUB_PAGE_MESSAGES:  # the page has no HF_TOKEN or --endpoint to offer
            return pick(HUB_PAGE_MESSAGES[self.code], lang, **params)
        return pick(MESSAGES[self.code], lang, **params)

    def to_dict(self, lang: str = "en", where: str = "cli") -> dict[str, Any]:
        return {"code": self.code, "key": self.params.get("key"), "message": self.message(lang, where)}


def _preset_hint(close: Any, lang: str, where: str) -> str:
    """"Did you mean …?" with the names :func:`calculator.presets.close_presets` found, else where the list is."""
    close = list(close or ())
    if close:
        return pick(PRESET_HINTS["close"], lang, names=join_choice(close, lang))
    return pick(PRESET_HINTS["page" if where == "page" else "cli"], lang)


#: After the first few names of a longer list.
MORE: dict[str, str] = {"en": ", …", "zh": "……"}

#: What a class with a fixed pooler has, for ``pooler_fixed``.
HAS_POOLER: dict[bool, dict[str, str]] = {
    True: {"en": "always has a pooler", "zh": "始终包含池化层"},
    False: {"en": "has no pooler", "zh": "不含池化层"},
}

#: JSON's names for the Python types a parsed config can hold.
KINDS: dict[str, dict[str, str]] = {
    "list": {"en": "an array", "zh": "数组"},
    "str": {"en": "a string", "zh": "字符串"},
    "int": {"en": "a number", "zh": "数字"},
    "float": {"en": "a number", "zh": "数字"},
    "bool": {"en": "true or false", "zh": "布尔值"},
    "NoneType": {"en": "null", "zh": "null"},
}

#: Why a text is not JSON, in both languages (the parser's own words are English only).
DETAILS: dict[str, dict[str, str]] = {
    "syntax": {"en": "syntax error at line {line}, column {column}", "zh": "第 {line} 行第 {column} 列有语法错误"},
    "not_utf8": {"en": "it is not UTF-8 text", "zh": "内容不是 UTF-8 文本"},
    "too_deep": {"en": "it is nested too deeply", "zh": "嵌套层数过多"},
    "empty": {"en": "it is empty", "zh": "内容为空"},
}


def _detail(params: dict[str, Any], lang: str) -> str:
    key = "syntax" if "line" in params else str(params.get("detail"))
    if key == "not text" or "UTF-8" in key:
        key = "not_utf8"
    entry = DETAILS.get(key)
    if entry is None:
        return _short(key)
    return pick(entry, lang, line=params.get("line", 1), column=params.get("column", 1))


def _short(value: Any) -> str:
    """Render a user value as JSON would write it, truncated so a pasted blob stays readable."""
    if isinstance(value, str):
        text = value if value else '""'
    else:
        try:
            text = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError):
            text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
