"""The training-step costs as text and Markdown in both languages, and the page panel's answer.

The CLI computes the step (:mod:`calculator.costs`) and appends :func:`render`
(text/Markdown) or puts :meth:`Costs.to_dict` under ``"costs"`` (JSON); the
worker protocol calls :func:`page_answer`.
"""
from __future__ import annotations

import json
import shlex
from dataclasses import replace
from typing import Any, Mapping

from .. import costs, options
from ..errors import CalcError
from ..i18n import L, colon, paren, pick, punct
from .notes import notes_block
from .numbers import display_width, fmt_binary_bytes, fmt_int
from .report import _table, md_text, plan_report

LABELS: dict[str, dict[str, str]] = {
    "title": L("Training step", "训练一步"),
    "settings": {
        "en": "B = {batch}, L = {seq_len}, {dtype}, {optimizer}, gradient checkpointing {ckpt}",
        "zh": "B = {batch}，L = {seq_len}，{dtype}，{optimizer}，梯度检查点{ckpt}",
    },
    "on": L("on", "开启"),
    "off": L("off", "关闭"),
    # The heading's word for each checkpointing mode (Settings.checkpointing_mode).
    "ckpt_mode_non-reentrant": L("on (non-reentrant)", "开启（非重入式）"),
    "ckpt_mode_reentrant": L("on (reentrant)", "开启（重入式）"),
    "flops": L("FLOPs", "浮点运算量（FLOPs）"),
    "forward": L("forward", "前向"),
    "backward": L("backward", "反向"),
    "total": L("total", "合计"),
    "memory": L("Memory", "显存/内存"),
    "weights": L("weights", "权重"),
    "gradients": L("gradients", "梯度"),
    "optimizer": L("optimizer state", "优化器状态"),
    "activations": L("activations (saved for backward)", "激活值（为反向传播保存）"),
    # The page's table, whose group row already says "Memory": its short row label.
    "activations_short": L("activations", "激活值"),
    "item": L("Item", "项目"),
    "value": L("Value", "数值"),
    "size": L("Size", "大小"),
    "bytes": L("bytes", "字节"),
    # What FlopCounterMode counts: matmuls AND convolutions (SqueezeBERT's forward is mostly 1×1
    # convolutions), not elementwise work; a grouped convolution's weight gradient as if ungrouped.
    "note": {
        "en": "Exact for this step as PyTorch runs it on CPU (FlopCounterMode: 2 FLOPs per multiply-add, "
        "matrix multiplications and convolutions counted, elementwise operations not). The memory total is the sum "
        "of four parts, not the peak: it leaves out the temporaries of the forward and backward, the layer being "
        "recomputed under gradient checkpointing, the framework's workspace, the caching allocator's rounding and "
        "fragmentation, and the CUDA context. The peak is a separate figure, given only where it is proven exact.",
        "zh": "这是 PyTorch 在 CPU 上运行这一步的精确值（FlopCounterMode：一次乘加记 2 次浮点运算，统计矩阵乘法和卷积，"
        "不统计逐元素运算）。显存合计是四个部分之和，不是峰值：不含前向和反向传播中的临时张量、开启梯度检查点时正在重算的那一层、"
        "框架的工作区、缓存分配器的取整和碎片，以及 CUDA 上下文。峰值另行给出，且只在确证精确时给出。",
    },
    "grouped_note": {
        "en": "Note: this model has grouped convolutions, and FlopCounterMode counts the gradient of a grouped "
        "convolution's weight as if the convolution were ungrouped (g times its multiply-adds), so the backward "
        "here is higher than the multiply-adds it performs.",
        "zh": "注意：这个模型有分组卷积，FlopCounterMode 把分组卷积的权重梯度按不分组的卷积计数（多算 g 倍），"
        "所以这里的反向 FLOPs 高于实际的乘加次数。",
    },
}
# The step's assumptions, said beside its figures and in every copy (issue 35, reader H1, H3, H4): what
# transformers would run differently, until the peak engine models it.
LABELS.update({
    "assumptions": L("Assumptions", "前提"),
    "attention_sdpa": L(
        "Attention: eager (attn_implementation=\"eager\"), which keeps the B × heads × L × L attention "
        "probabilities for the backward. transformers 5.23 builds {architecture} with SDPA by default, which "
        "keeps far less at long L; these figures are not for that default.",
        "注意力：eager（attn_implementation=\"eager\"），反向传播要保存 B × 头数 × L × L 的注意力概率。"
        "transformers 5.23 默认用 SDPA 构建 {architecture}，L 较长时保存的要少得多；这里的数字不是那种默认情况的。",
    ),
    "attention_sdpa_run": L(
        "Attention: SDPA (attn_implementation=\"sdpa\"), transformers 5.23's default for {architecture}, with "
        "attention dropout 0: on CPU PyTorch's fused flash kernel, whose backward keeps q, k, v, its output and a "
        "float32 logsumexp per head and token (and the additive mask where one is passed), not the B × heads × L × L "
        "probabilities; its backward computes "
        "the scores again (five matrix products, against eager's four). With attention dropout > 0 PyTorch on "
        "CPU runs its math path instead, while a GPU's fused kernels apply the dropout inside: the figures are "
        "then the fused kernel's with attention dropout 0, and a note says so.",
        "注意力：SDPA（attn_implementation=\"sdpa\"），即 transformers 5.23 构建 {architecture} 时的默认方式，"
        "注意力 dropout 为 0：在 CPU 上走 PyTorch 的融合 flash kernel，反向传播只保存 q、k、v、输出和每个头每个 token "
        "一个 float32 的 logsumexp（传入加性掩码时还有掩码），不保存 B × 头数 × L × L 的注意力概率；反向传播会重新计算注意力分数"
        "（五次矩阵乘法，eager 是四次）。注意力 dropout 大于 0 时，PyTorch 在 CPU 上改走 math 路径，而 GPU 的融合 "
        "kernel 在内部做 dropout：这时给出的是融合 kernel 在注意力 dropout 为 0 时的数字，并另加说明。",
    ),
    # Where CPU leaves the flash kernel for SDPA's math path (Ops.sdpa_math): check_head_dim_size_cpp (heads of
    # unequal sizes) and a mask that needs a gradient (the flash kernel on CPU takes none); CUDA's memory-efficient
    # kernel returns a gradient for its attn_bias (torch/_meta_registrations.py, PyTorch 2.13), not measured here.
    "attention_sdpa_math_run": L(
        "Attention: SDPA (attn_implementation=\"sdpa\"), transformers 5.23's default for {architecture}, with "
        "attention dropout 0; here PyTorch on CPU runs SDPA's math path, not its fused flash kernel (a mask that needs "
        "a gradient, such as T5's trained position bias, or heads of unequal sizes): its backward keeps the float32 "
        "B × heads × L × L probabilities, as eager attention does. On a GPU PyTorch may pick its memory-efficient "
        "kernel, which takes such a mask and keeps less: not measured here.",
        "注意力：SDPA（attn_implementation=\"sdpa\"），即 transformers 5.23 构建 {architecture} 时的默认方式，"
        "注意力 dropout 为 0；但这里 PyTorch 在 CPU 上走的是 SDPA 的 math 路径，而不是融合 flash kernel（掩码需要梯度，"
        "例如 T5 训练中的相对位置偏置，或者各个头的宽度不同）：反向传播要保存 float32 的 B × 头数 × L × L 注意力概率，"
        "和 eager 一样。在 GPU 上 PyTorch 可能改用内存高效注意力 kernel，它支持这种掩码，保存的更少：本站未实测。",
    ),
    # SDPA with attention dropout > 0 (issue 35, reader H1): what the figures are, what a GPU adds, what CPU runs.
    # The GPU kernels' outputs: torch/_meta_registrations.py (meta__scaled_dot_product_flash_attention,
    # meta__scaled_dot_product_efficient_attention) and the saved variables of ScaledDotProductFlashAttentionBackward0
    # and ScaledDotProductEfficientAttentionBackward0 (torch/csrc/autograd/generated/Functions.h), PyTorch 2.13;
    # checked in tests/crosscheck/test_costs_sdpa_reference.py.
    "sdpa_dropout_gpu": L(
        "Attention dropout {value} ({dropout_key}) with SDPA: these figures are PyTorch's CPU fused kernel "
        "(_scaled_dot_product_flash_attention_for_cpu; SDPA's math path where that kernel cannot run) measured with "
        "attention dropout 0, every other dropout as configured. A GPU's fused kernels keep no dropout mask either: flash and memory-efficient attention apply "
        "the dropout inside the kernel and keep for the backward only its random-number state, a few bytes per layer "
        "(flash: rng_state, 16 bytes, and an 8-byte tensor; memory-efficient: an 8-byte Philox seed and an 8-byte "
        "offset), not measured here. On CPU PyTorch runs this step on SDPA's math path instead, which keeps, as "
        "eager attention does, the B × heads × L × L probabilities and a dropout mask of that size.",
        "SDPA 下注意力 dropout 为 {value}（{dropout_key}）：这里的数字是 PyTorch 在 CPU 上的融合 kernel"
        "（_scaled_dot_product_flash_attention_for_cpu；该 kernel 无法运行时为 SDPA 的 math 路径）在注意力 dropout 为 0 "
        "时测得的，其余 dropout 按配置计算。"
        "GPU 的融合 kernel 同样不保存 dropout 掩码：flash 和内存高效注意力在 kernel 内部做 dropout，为反向传播只保存"
        "随机数状态，每层几个字节（flash：16 字节的 rng_state 和一个 8 字节的张量；内存高效注意力：各 8 字节的 "
        "Philox 种子和偏移量），这里没有测量。在 CPU 上，PyTorch 这一步改走 SDPA 的 math 路径，它和 eager 注意力一样，"
        "要保存 B × 头数 × L × L 的注意力概率和同样大小的 dropout 掩码。",
    ),
    "attention_sdpa_fallback": L(
        "Attention: eager. transformers 5.23 builds {architecture} with SDPA by default, but that step is not "
        "worked out here for this model ({code}), so these figures are eager attention's, which keeps the "
        "B × heads × L × L attention probabilities for the backward; choose eager or sdpa to say which you mean.",
        "注意力：eager。transformers 5.23 默认用 SDPA 构建 {architecture}，但这里还没有为这个模型算出 SDPA 下的一步"
        "（{code}），所以这些数字是 eager 注意力的，反向传播要保存 B × 头数 × L × L 的注意力概率；"
        "可以明确选择 eager 或 sdpa。",
    ),
    "attention_eager": L(
        "Attention: eager, as transformers 5.23 builds {architecture} (it offers no SDPA).",
        "注意力：eager，与 transformers 5.23 构建 {architecture} 的方式相同（它不支持 SDPA）。",
    ),
    "dtype_fp32": L(
        "dtype fp32: weights, gradients and optimizer state in float32, no autocast.",
        "dtype fp32：权重、梯度和优化器状态都是 float32，不用 autocast。",
    ),
    "dtype_bf16": L(
        "dtype bf16: the whole model cast to bf16 (model.to(torch.bfloat16)), so weights, gradients and optimizer "
        "state are bf16 too. This is not Trainer(bf16=True), which is autocast with fp32 master weights: 16 bytes "
        "per parameter for the weights, gradients and AdamW's two moments before any activation: the mixed-precision "
        "setting (autocast bf16) gives that step.",
        "dtype bf16：整个模型转换为 bf16（model.to(torch.bfloat16)），权重、梯度和优化器状态也都是 bf16。"
        "这不是 Trainer(bf16=True)：后者是 autocast 加 fp32 主权重，权重、梯度和 AdamW 的两个动量每个参数共 16 字节，"
        "还不算激活值；混合精度设置（autocast bf16）给出的就是这种情况。",
    ),
    "dtype_autocast_bf16": L(
        "Mixed precision: autocast bf16, fp32 weights: the weights, gradients and optimizer state stay float32 "
        "(Trainer(bf16=True)); the forward runs under torch.autocast(\"cpu\", dtype=torch.bfloat16), the loss and "
        "the backward outside it. Matrix products read bf16 copies of their float32 inputs and of the weights, and "
        "keep those copies for the backward, so the activations include a bf16 copy of every weight the backward "
        "multiplies by. CPU's autocast rules as PyTorch 2.13 lists them; CUDA's lists more float32 operations "
        "(softmax, layer_norm, ...), not measured here.",
        "混合精度：autocast bf16，fp32 权重：权重、梯度和优化器状态仍为 float32（即 Trainer(bf16=True)）；前向传播在 "
        "torch.autocast(\"cpu\", dtype=torch.bfloat16) 下运行，损失和反向传播在其外。矩阵乘法读取 float32 输入和权重的 "
        "bf16 副本，并为反向传播保存这些副本，所以激活值里包含反向传播要乘的每个权重的一份 bf16 副本。"
        "按 PyTorch 2.13 CPU 上的 autocast 规则计算；CUDA 的规则把更多运算放在 float32 中（softmax、layer_norm 等），这里没有测量。",
    ),
    "autocast_heading": L("fp32 weights, autocast {autocast}", "fp32 权重，autocast {autocast}"),
    "ckpt_non-reentrant": L(
        "Gradient checkpointing non-reentrant (use_reentrant=False), transformers 5.23's default: in the backward "
        "each layer runs its forward again only up to the last tensor it saves for the backward.",
        "梯度检查点为非重入式（use_reentrant=False），即 transformers 5.23 的默认值：反向传播时每一层只把前向"
        "重算到它为反向传播保存的最后一个张量为止。",
    ),
    "ckpt_reentrant": L(
        "Gradient checkpointing reentrant (use_reentrant=True), as chosen; transformers 5.23's default is "
        "use_reentrant=False. Each layer's recomputation in the backward runs the whole layer again.",
        "梯度检查点为重入式（use_reentrant=True，按所选）；transformers 5.23 的默认值是 use_reentrant=False。"
        "反向传播中每一层的重算会把整层再跑一遍。",
    ),
    "fits_sum": L(
        "The four components sum to {sum} ({exact} bytes) against {gpu} GB ({capacity} bytes).",
        "四个部分合计 {sum}（{exact} 字节），显存为 {gpu} GB（{capacity} 字节）。",
    ),
    "fits_under": L(
        "The sum is {left} less than the card holds. That is no verdict that the step fits: the sum is not the "
        "peak, and the peak is not modelled yet.",
        "合计比显存少 {left}。但这并不表示这一步放得下：合计不是峰值，而峰值目前还没有建模。",
    ),
    "fits_over": L(
        "The sum alone is {over} more than the card holds. The peak is not modelled yet, and it can differ from the "
        "sum either way: not every part is live at once, and what the sum leaves out adds to it.",
        "仅合计就比显存多出 {over}。峰值目前还没有建模，它与合计可能有出入：各部分不一定同时占用，合计之外的开销又会增加占用。",
    ),
    "fits_left_out": L(
        "Left out of the sum: the temporaries of the forward and backward passes{recomputed}, the framework's "
        "workspace, the allocator's rounding and fragmentation, and the CUDA context. Estimate of the last three, "
        "not measured here: about {margin} ({context} for the CUDA context and kernels, as Hugging Face measured "
        "them, plus {share}% of the sum).",
        "合计没有包含：前向和反向传播中的临时张量{recomputed}、框架的工作区、缓存分配器的取整和碎片，以及 CUDA 上下文。"
        "后三项的估算值（本站未实测）：约 {margin}（CUDA 上下文和加载的 kernel 约 {context}，取自 Hugging Face 的实测，另加合计的 {share}%）。",
    ),
    "recomputed": L(
        ", the layer recomputed during the backward under gradient checkpointing (its activations and their gradients)",
        "、开启梯度检查点时反向传播中重算的那一层（它的激活值及其梯度）",
    ),
    "peak_line": L(
        "Peak of live memory: {peak} ({exact} bytes), in the {phase} ({op}, at {module}); largest live then: {items}.",
        "显存峰值（同时存活的张量）：{peak}（{exact} 字节），出现在{phase}（{op}，{module}）；此时最大的几项：{items}。",
    ),
    # Issue 35: the same peak as CUDA's caching allocator holds it (each block a multiple of 512 bytes).
    "peak_512": L(
        "With every storage rounded up to CUDA's 512-byte block, as torch.cuda.max_memory_allocated() and PyTorch's "
        "MemTracker count it: {peak} ({exact} bytes).",
        "把每个存储按 CUDA 的 512 字节块向上取整（即 torch.cuda.max_memory_allocated() 和 PyTorch 的 MemTracker "
        "的统计方式）：{peak}（{exact} 字节）。",
    ),
    "peak_none": L(
        "Peak of live memory: not given for this step ({reason}): the engine gives the peak only where it is proven "
        "exact against PyTorch (so far: the optimizer step, when it provably exceeds the forward and the backward; "
        "and every phase of the families whose forward is replayed tensor by tensor and whose backward operation "
        "by operation, listed on the \"What fits\" page).",
        "显存峰值（同时存活的张量）：这一步暂不给出（{reason}）：只有经 PyTorch 核对、确证精确时才给出峰值"
        "（目前：优化器更新阶段，且可证明高于前向与反向；以及前向传播逐个张量重放、反向传播逐个算子推算的"
        "那些模型系列的所有阶段，名单见“放得下吗”页面）。",
    ),
    "phase_optimizer": L("optimizer step", "优化器更新阶段"),
    "phase_forward": L("forward pass", "前向传播"),
    "phase_backward": L("backward pass", "反向传播"),
    "phase_loss": L("loss", "损失计算"),
    "kind_weights": L("weights", "权重"),
    "kind_gradient": L("gradient", "梯度"),
    "kind_exp_avg": L("exp_avg", "exp_avg"),
    "kind_exp_avg_sq": L("exp_avg_sq", "exp_avg_sq"),
    "kind_momentum_buffer": L("momentum buffer", "动量缓冲"),
    "kind_temporary": L("temporary", "临时张量"),
    "kind_activation": L("activation", "激活值"),
    "kind_step": L("step", "step"),
    "kind_buffer": L("buffer", "buffer"),  # the site's term (tests/docs/terminology.toml): buffer
    "kind_input_ids": L("input_ids", "input_ids"),
    "reason_family": L("the peak is not cross-checked for this family yet", "这个系列的峰值尚未核对"),
    "reason_config": L("the peak is not cross-checked yet for this configuration", "此配置下的峰值尚未核对"),
    "reason_sgd": L("plain SGD allocates nothing in its step, so the peak lies in the forward or the backward, "
                    "not modelled yet", "不带动量的 SGD 更新时不分配内存，峰值在前向或反向中，目前尚未建模"),
    "reason_setting": L("the setting {name} is not cross-checked for the peak yet", "设置 {name} 的峰值尚未核对"),
    "reason_nothing trains": L("nothing trains", "没有可训练的参数"),
    # Issue 32: why mixed precision has no peak and no bound (PEAK.md: the autocast cache, freed as the region exits).
    "reason_autocast": L(
        "under autocast the forward can peak above its end: autocast's cache holds a bf16 copy of every weight it "
        "casts until the autocast region exits, beside each matrix product's own bf16 copy of its input; the engine "
        "does not yet replay that forward operation by operation, so it proves neither a figure nor a bound",
        "autocast 下前向传播中途的显存可能高于前向结束时：autocast 的缓存为它转换过的每个权重保留一份 bf16 副本，"
        "直到退出 autocast 区域才释放，此外每个矩阵乘法还各自保存一份输入的 bf16 副本；引擎还不能逐个算子重放这样的前向传播，"
        "所以既不能证明峰值，也不能证明上下界",
    ),
    "fit_why": L("Why neither is known: {why}; so no batch or length is proven to fit or not to fit.",
                 "为什么两者都未知：{why}；因此没有哪个批大小或长度能被证明放得下或放不下。"),
    "reason_adafactor": L("Adafactor's step is not modelled yet", "Adafactor 的更新过程尚未建模"),
    "reason_forward or backward": L("the forward or the backward may be higher than the optimizer step, and "
                                    "they are not modelled op by op yet", "前向或反向可能高于优化器更新阶段，而它们尚未逐个算子建模"),
    "fits_peak": L(
        "The peak, {peak} ({exact} bytes), is {left} below {gpu} GB ({capacity} bytes): the step fits, as PyTorch "
        "counts live tensors.",
        "峰值 {peak}（{exact} 字节）比 {gpu} GB（{capacity} 字节）少 {left}：按 PyTorch 统计的存活张量，这一步放得下。",
    ),
    "fits_peak_over": L(
        "The peak, {peak} ({exact} bytes), is {over} above {gpu} GB ({capacity} bytes): the step does not fit.",
        "峰值 {peak}（{exact} 字节）比 {gpu} GB（{capacity} 字节）多 {over}：这一步放不下。",
    ),
    "fits_peak_margin": L(
        "Not in the peak: the CUDA context, the framework's workspace and the allocator's rounding and "
        "fragmentation, about {margin} by estimate (not measured here){tight}.",
        "峰值不含：CUDA 上下文、框架的工作区、缓存分配器的取整和碎片，估算约 {margin}（本站未实测）{tight}。",
    ),
    "fit_batch": L("Largest batch at L = {seq_len} whose peak fits {budget} bytes: {answer}.",
                   "在 L = {seq_len} 下峰值不超过 {budget} 字节的最大批大小：{answer}。"),
    "fit_length": L("Largest length at B = {batch} whose peak fits {budget} bytes: {answer}.",
                    "在 B = {batch} 下峰值不超过 {budget} 字节的最大序列长度：{answer}。"),
    "fit_exact": L("{n}", "{n}"),
    "fit_none": L("none (even 1 does not fit)", "没有（1 也放不下）"),
    "fit_between": L("at least {low}{high} (the peak in between is not modelled yet)",
                     "至少 {low}{high}（中间的峰值尚未建模）"),
    "fit_below": L(", less than {n}", "，小于 {n}"),
    "fit_at_least": L("at least {low} (the peak above it is not modelled yet)", "至少 {low}（更大时的峰值尚未建模）"),
    "fit_unknown": L("not known (the peak is not modelled for this step)", "未知（这一步的峰值尚未建模）"),
    "fits_tight": L("; the room left is less than that, so it may still run out of memory",
                    "；剩余空间比这还少，仍可能显存不足"),
    # Where the peak has no exact figure but proven bounds (costs.peak.Peak.lower/upper): the verdict from them.
    "peak_bounds": L("Proven bounds: {lower} ({lower_exact} bytes) ≤ peak ≤ {upper}.",
                     "已证明的范围：{lower}（{lower_exact} 字节）≤ 峰值 ≤ {upper}。"),
    "peak_upper": L("{upper} ({upper_exact} bytes)", "{upper}（{upper_exact} 字节）"),
    "peak_upper_unknown": L("not known", "未知"),
    "fits_bounds": L(
        "The exact peak is not worked out for this step, but it is at most {upper} ({exact} bytes), {left} below "
        "{gpu} GB ({capacity} bytes): the step fits, as PyTorch counts live tensors.",
        "这一步的峰值还没有精确算出，但它至多为 {upper}（{exact} 字节），比 {gpu} GB（{capacity} 字节）少 {left}："
        "按 PyTorch 统计的存活张量，这一步放得下。",
    ),
    "fits_bounds_over": L(
        "The exact peak is not worked out for this step, but it is at least {lower} ({exact} bytes), {over} above "
        "{gpu} GB ({capacity} bytes): the step does not fit.",
        "这一步的峰值还没有精确算出，但它至少为 {lower}（{exact} 字节），比 {gpu} GB（{capacity} 字节）多 {over}："
        "这一步放不下。",
    ),
    "fits_bounds_unknown": L(
        "The exact peak is not worked out for this step: it lies between {lower} and {upper}, and {gpu} GB "
        "({capacity} bytes) is within that range, so whether the step fits is not known yet. It fits for sure "
        "if the card holds the upper bound, and does not fit if the lower bound exceeds the card.",
        "这一步的峰值还没有精确算出：它介于 {lower} 和 {upper} 之间，而 {gpu} GB（{capacity} 字节）落在这个范围内，"
        "所以目前还不知道放不放得下。显存不小于上界时一定放得下，下界超过显存时一定放不下。",
    ),
    "fit_weights": L("Largest batch and length that fit in {gpu} GB: none: the weights alone, {weights}, are more "
                     "than the card holds.",
                     "{gpu} GB 放得下的最大批大小和序列长度：没有，仅权重（{weights}）就超过了显存。"),
    "fit_too_deep": L("The page does not search for the largest batch and length of a model this deep ({layers} "
                      "layers{ckpt}: each try is a whole step). The CLI does, with the same engine: {option}, as in "
                      "the command the copy ends with.",
                      "这个模型太深（{layers} 层{ckpt}，每试一次就要算一整步），页面不搜索最大批大小和序列长度。"
                      "命令行可以，用的是同一个引擎：{option}，见复制内容末尾的命令。"),
    "fit_too_deep_ckpt": L(", each run twice under gradient checkpointing", "，开启梯度检查点时每层算两遍"),
    "gb_note": L("N GB is read as N GiB (2^30 bytes), as a card sold as N GB holds.",
                 "N GB 按 N GiB（2^30 字节）计算，即标称 N GB 的显卡的容量。"),
    "command": L("The same with the CLI:", "用命令行得到同样的结果："),
})
#: The optimizers' names as the menu, the heading and the copies print them.
OPTIMIZER_NAMES = {"adamw": "AdamW", "sgd": "SGD", "sgd-momentum": "SGD (momentum)", "adafactor": "Adafactor"}
#: Names that differ in Chinese (full-width brackets, the word for momentum).
OPTIMIZER_NAMES_ZH = {"sgd-momentum": "SGD（带动量）"}


def optimizer_name(key: str, lang: str = "en") -> str:
    """The optimizer's name in ``lang`` ("SGD (momentum)" / "SGD（带动量）")."""
    if lang == "zh" and key in OPTIMIZER_NAMES_ZH:
        return OPTIMIZER_NAMES_ZH[key]
    return OPTIMIZER_NAMES.get(key, key)


def grouped_convolutions(inv: Any) -> bool:
    """Whether the model has a convolution with groups > 1, whose weight gradient FlopCounterMode
    counts as ungrouped (``conv_backward_flop``): the step's note then says so."""
    return any(t.module == "conv1d" and t.groups > 1 for t in inv.tensors)


def label(key: str, lang: str = "en", **params: Any) -> str:
    return pick(LABELS[key], lang, **params)


def _int(n: int) -> str:
    return f"{n:,}"


def rows(c: costs.Costs, lang: str) -> list[tuple[str, str, str]]:
    """(label, exact integer, readable) rows: FLOPs forward/backward/total, then memory by component and total."""
    flops = [("forward", c.forward), ("backward", c.backward), ("total", c.forward + c.backward)]
    memory = [("weights", c.weights), ("gradients", c.gradients), ("optimizer", c.optimizer),
              ("activations", c.activations), ("total", c.memory_total)]
    out = [(f"{label('flops', lang)} · {label(k, lang)}", _int(v), "") for k, v in flops]
    out += [(f"{label('memory', lang)} · {label(k, lang)}", _int(v), fmt_binary_bytes(v)) for k, v in memory]
    return out


def grouped_rows(c: costs.Costs, lang: str) -> list[tuple[str, list[tuple[str, str, int, str]]]]:
    """The same figures as :func:`rows` under their two group names, each row's own label short
    ("forward", "weights"): (group label, [(key, row label, exact integer, readable)]). The page's
    table, whose first column then stays narrow enough for a phone."""
    flops = [("forward", c.forward), ("backward", c.backward), ("total", c.forward + c.backward)]
    memory = [("weights", c.weights), ("gradients", c.gradients), ("optimizer", c.optimizer),
              ("activations", c.activations), ("total", c.memory_total)]
    return [
        (label("flops", lang), [(k, label(k, lang), v, "") for k, v in flops]),
        (label("memory", lang), [(k, label("activations_short" if k == "activations" else k, lang), v,
                                  fmt_binary_bytes(v)) for k, v in memory]),
    ]


def heading(c: costs.Costs, lang: str) -> str:
    s = c.settings
    dtype = label("autocast_heading", lang, autocast=s.autocast) if s.autocast else s.dtype
    return label("settings", lang, batch=s.batch, seq_len=s.seq_len, dtype=dtype,
                 optimizer=optimizer_name(s.optimizer, lang), ckpt=ckpt_name(s.checkpointing_mode, lang))


def ckpt_name(mode: str | bool, lang: str) -> str:
    """The heading's word for a checkpointing mode (the JSON's ``grad_checkpointing``): off, or on and which way."""
    return label(f"ckpt_mode_{mode}", lang) if mode else label("off", lang)


def assumptions(inv: Any, s: costs.Settings, lang: str, fallback: str | None = None,
                math: bool = False) -> list[tuple[str, str]]:
    """(key, sentence) for what this step assumes where transformers would run it otherwise: the attention
    (eager, where SDPA is the class's default as :attr:`Family.default_attention` says, or the SDPA step that
    ran: ``attention_sdpa_run``), the dtype (a whole-model cast, not Trainer's mixed precision) and which
    checkpointing (non-reentrant, transformers' default, or reentrant), one sentence per mode. ``math``: SDPA ran
    its math path, not CPU's flash kernel (:attr:`~calculator.costs.step.Costs.sdpa_math`), said instead."""
    family = getattr(inv, "family", None)
    attention = "attention_sdpa" if getattr(family, "default_attention", "eager") == "sdpa" else "attention_eager"
    if s.attention == "sdpa":  # the step ran SDPA (only where the class has it: costs_no_sdpa otherwise)
        attention = "attention_sdpa_math_run" if math else "attention_sdpa_run"
    elif fallback:  # the default attention: SDPA refused for this model (``Costs.attention_fallback``), eager ran
        attention = "attention_sdpa_fallback"
    out = [(attention, label(attention, lang, architecture=inv.architecture, code=fallback or "")),
           (f"dtype_{s.dtype}", label(f"dtype_{s.dtype}", lang))]
    if s.autocast:  # the dtype sentence says mixed precision: fp32 weights, the forward under autocast
        out[1] = (f"dtype_autocast_{s.autocast}", label(f"dtype_autocast_{s.autocast}", lang))
    if family is not None and "costs_mixing" in family.labels:  # a family without attention (FNet) says what mixes instead
        out[0] = ("costs_mixing", family.label("costs_mixing", lang, architecture=inv.architecture))
    if s.checkpointing:
        key = f"ckpt_{s.checkpointing_mode}"
        out.append((key, label(key, lang)))
    out += [(n["code"], n["message"]) for n in step_notes(inv, s, lang)]
    return out


def step_notes(inv: Any, s: costs.Settings, lang: str) -> list[dict[str, Any]]:
    """The step's notes, ``{code, key, value, message}``: SDPA with attention dropout > 0 (``sdpa_dropout_gpu``),
    whose figures are the fused kernel's with attention dropout 0 (:func:`calculator.costs.step.sdpa_dropout`). The
    CLI's JSON adds them to ``notes``; text, Markdown and the panel list them with the assumptions."""
    from ..costs.step import sdpa_dropout

    return [{"code": "sdpa_dropout_gpu", "key": key, "value": value,
             "message": label("sdpa_dropout_gpu", lang, dropout_key=key, value=value)} for key, value in sdpa_dropout(inv, s)]


#: The N of "fits in N GB?" (GiB: what a card sold as N GB holds); its bound.
GIB = 2**30
GPU_MAX = 100_000
#: The card's size as an error names it: its field's label without the gloss (``gpu_gb`` is only in the address).
GPU_NAME = L("GPU memory N GB", "显存 N GB")
#: The margin for what the exact sum leaves out, an estimate: the CUDA context and kernels
#: (Hugging Face measured 1.3 GB for them, "Model training anatomy"), and a tenth of the sum
#: for the framework's workspace and the caching allocator's rounding and fragmentation.
CONTEXT_ESTIMATE = 13 * GIB // 10
FRAGMENTATION_SHARE = 10  # percent of the exact sum


def gib(n: int) -> str:
    """Bytes in binary units, one precision wherever a step's memory is printed (chinese-review-3 L10)."""
    return fmt_binary_bytes(n)


def gpu_gb(value: Any) -> int:
    """N of "fits in N GB?": a whole number of at least 1 (``costs_not_positive``/``too_large`` otherwise)."""
    return costs._positive("gpu_gb", "" if value is None else str(value).strip(), GPU_MAX, GPU_NAME)


def peak_bounds(p: Any) -> tuple[int, int | None] | None:
    """The proven (lower, upper) of a step's peak (:class:`calculator.costs.peak.Peak`): both the figure where it
    is exact; ``upper`` None where only a lower bound is known; None where not even that (no peak, nothing trains)."""
    if p is None:
        return None
    if p.bytes is not None:
        return p.bytes, p.bytes
    if not p.lower:
        return None
    return p.lower, p.upper


def fits(total: int, gpu: int, lang: str, checkpointing: bool = False, peak: int | None = None,
         bounds: tuple[int, int | None] | None = None) -> tuple[str, list[str]]:
    """The one verdict of "fits in N GB?" (the CLI's ``--gpu-gb`` and the page's panel), and its sentences.

    Given ``peak`` (the step's proven peak, :mod:`calculator.costs.peak`): ("fits" | "does_not_fit") by the
    peak against N GiB, and what the peak leaves out (the CUDA context, workspace, rounding: an estimate).

    Else given ``bounds`` (the proven lower and upper bound of the peak, :func:`peak_bounds`): "fits" when even
    the upper bound is within N GiB, "does_not_fit" when the lower bound exceeds it, else "unknown" (N GiB lies
    between them): never a verdict the bounds do not prove.

    Else: ("under" | "over", the sentences): the exact sum against N GiB, what it leaves out, and that the peak
    is not modelled yet. Never "fits" from the sum: a sum of four parts is not a peak (issue 35)."""
    capacity = gpu * GIB
    if peak is not None:
        margin = CONTEXT_ESTIMATE + peak * FRAGMENTATION_SHARE // 100
        common = {"peak": gib(peak), "exact": fmt_int(peak, lang), "gpu": gpu, "capacity": fmt_int(capacity, lang)}
        if peak > capacity:
            return "does_not_fit", [label("fits_peak_over", lang, over=gib(peak - capacity), **common)]
        tight = label("fits_tight", lang) if capacity - peak < margin else ""
        return "fits", [label("fits_peak", lang, left=gib(capacity - peak), **common),
                        label("fits_peak_margin", lang, margin=gib(margin), tight=tight)]
    if bounds is not None:
        lower, upper = bounds
        card = {"gpu": gpu, "capacity": fmt_int(capacity, lang)}
        if upper is not None and upper <= capacity:
            margin = CONTEXT_ESTIMATE + upper * FRAGMENTATION_SHARE // 100
            tight = label("fits_tight", lang) if capacity - upper < margin else ""
            return "fits", [label("fits_bounds", lang, upper=gib(upper), exact=fmt_int(upper, lang),
                                  left=gib(capacity - upper), **card),
                            label("fits_peak_margin", lang, margin=gib(margin), tight=tight)]
        if lower > capacity:
            return "does_not_fit", [label("fits_bounds_over", lang, lower=gib(lower), exact=fmt_int(lower, lang),
                                          over=gib(lower - capacity), **card)]
        high = gib(upper) if upper is not None else label("peak_upper_unknown", lang)
        return "unknown", [label("fits_bounds_unknown", lang, lower=gib(lower), upper=high, **card)]
    margin = CONTEXT_ESTIMATE + total * FRAGMENTATION_SHARE // 100
    lines = [label("fits_sum", lang, sum=gib(total), exact=fmt_int(total, lang), gpu=gpu,
                   capacity=fmt_int(capacity, lang))]
    if total > capacity:
        verdict = "over"
        lines.append(label("fits_over", lang, over=gib(total - capacity)))
    else:
        verdict = "under"
        lines.append(label("fits_under", lang, left=gib(capacity - total)))
    lines.append(label("fits_left_out", lang, recomputed=label("recomputed", lang) if checkpointing else "",
                       margin=gib(margin), context=gib(CONTEXT_ESTIMATE), share=FRAGMENTATION_SHARE))
    return verdict, lines


def step_fits(c: costs.Costs, gpu: int, lang: str) -> tuple[str, list[str]]:
    """:func:`fits` for a computed step: its peak where exact, else its proven bounds, else its sum."""
    p = c.peak
    return fits(c.memory_total, gpu, lang, c.settings.checkpointing, p.bytes if p is not None else None,
                peak_bounds(p))


def peak_line(c: costs.Costs, lang: str) -> str | None:
    """One sentence: the step's peak, where and what is largest then; or why it is not given. None: no peak."""
    p = c.peak
    if p is None:
        return None
    if p.bytes is None:
        key = f"reason_{p.reason}"
        reason = label(key, lang) if key in LABELS else label("reason_setting", lang, name=p.reason)
        line = label("peak_none", lang, reason=reason)
        bounds = peak_bounds(p)
        if bounds is None:
            return line
        lower, upper = bounds
        high = (label("peak_upper", lang, upper=gib(upper), upper_exact=fmt_int(upper, lang)) if upper is not None
                else label("peak_upper_unknown", lang))
        return line + punct("sentence_gap", lang) + label("peak_bounds", lang, lower=gib(lower),
                                                             lower_exact=fmt_int(lower, lang), upper=high)
    sep = "；" if lang == "zh" else "; "
    items = sep.join(f"{label('kind_' + i.kind, lang)} {i.name} {gib(i.bytes)}" for i in p.items[:4])
    items = items.replace("; ", ", ") if lang == "en" else items.replace("；", "、")
    line = label("peak_line", lang, peak=gib(p.bytes), exact=fmt_int(p.bytes, lang),
                 phase=label(f"phase_{p.phase}", lang), op=p.op, module=p.module, items=items)
    if p.bytes_512 is not None:
        line += punct("sentence_gap", lang) + label("peak_512", lang, peak=gib(p.bytes_512),
                                                    exact=fmt_int(p.bytes_512, lang))
    return line


def fit_lines(fit: Mapping[str, Any], lang: str, why: str | None = None) -> list[str]:
    """The two sentences of ``--fit-gib``: the largest batch at L and the largest length at B (:mod:`..costs.fit`);
    ``why``: where nothing is proven either way, the reason the step has no peak (:func:`unknown_reason`)."""

    def answer(exact: int | None, low: int, over: int | None) -> str:
        if exact == 0:
            return label("fit_none", lang)
        if exact is not None:
            return fmt_int(exact, lang)
        if low == 0 and over is None:
            return label("fit_unknown", lang)
        if over is None:
            return label("fit_at_least", lang, low=fmt_int(low, lang))
        return label("fit_between", lang, low=fmt_int(low, lang), high=label("fit_below", lang, n=fmt_int(over, lang)))

    budget = fmt_int(fit["budget"], lang)
    lines = [label("fit_batch", lang, seq_len=fit["seq_len"], budget=budget,
                   answer=answer(fit["max_batch"], fit["max_batch_at_least"], fit["batch_does_not_fit"])),
             label("fit_length", lang, batch=fit["batch"], budget=budget,
                   answer=answer(fit["max_seq_len"], fit["max_seq_len_at_least"], fit["seq_len_does_not_fit"]))]
    unknown = all(fit[k] is None for k in ("max_batch", "batch_does_not_fit", "max_seq_len", "seq_len_does_not_fit"))
    if why and unknown and not fit["max_batch_at_least"] and not fit["max_seq_len_at_least"]:
        lines.append(label("fit_why", lang, why=why))
    return lines


def unknown_reason(c: costs.Costs, lang: str) -> str | None:
    """Why the step has no peak, where its reason has words of its own (mixed precision: ``reason_autocast``)."""
    p = c.peak
    key = f"reason_{p.reason}" if p is not None and p.bytes is None and p.reason else ""
    return label(key, lang) if key == "reason_autocast" else None


def note(lang: str, grouped: bool = False) -> str:
    """What the figures are and leave out; with ``grouped``, how FlopCounterMode counts grouped convolutions."""
    if not grouped:
        return label("note", lang)
    return label("note", lang) + punct("sentence_gap", lang) + label("grouped_note", lang)


def render(c: costs.Costs, lang: str = "en", markdown: bool = False, grouped: bool = False, inv: Any = None,
           gpu: int | None = None, fit: Mapping[str, Any] | None = None, fit_note: str | None = None) -> str:
    """Text (aligned columns) or a Markdown table, with the settings, the step's assumptions (given ``inv``),
    what the sum leaves out, and (given ``gpu``, the CLI's ``--gpu-gb``) the sum against the card.

    ``grouped``: the model has grouped convolutions (:func:`grouped_convolutions`), which the note explains.
    """
    title = f"{label('title', lang)}{colon(lang)}{heading(c, lang)}"
    table = rows(c, lang)
    assumed = [text for _, text in assumptions(inv, c.settings, lang, c.attention_fallback, c.sdpa_math)] if inv is not None else []
    card = step_fits(c, gpu, lang)[1] + [label("gb_note", lang)] if gpu else []
    line = peak_line(c, lang)
    card = ([line] if line else []) + card + (fit_lines(fit, lang, unknown_reason(c, lang)) if fit is not None else [])
    card += [fit_note] if fit_note else []
    if markdown:
        head = (label("item", lang), label("value", lang), label("size", lang))
        out = f"**{title}**\n\n"
        if assumed:
            out += f"{label('assumptions', lang)}{colon(lang).rstrip()}\n\n" + "".join(f"- {a}\n" for a in assumed) + "\n"
        out += _table(head, "lrr", table) + "\n" + note(lang, grouped) + "\n"
        return out + "".join("\n" + line + "\n" for line in card)
    width = max(display_width(name) for name, _, _ in table) + 2
    digits = max(len(value) for _, value, _ in table)
    lines = [title]
    if assumed:
        lines.append(f"{label('assumptions', lang)}{colon(lang).rstrip()}")
        lines += [f"- {a}" for a in assumed]
    lines += [f"{name}{' ' * (width - display_width(name))}{value:>{digits}}  {readable}".rstrip() for name, value, readable in table]
    lines.append(note(lang, grouped))
    lines += card
    return "\n".join(lines) + "\n"


#: The CLI's options for the planner's link keys (the page's keys are the options with underscores).
_PLAN_OPTIONS = {"lora_r": "--lora-r", "lora_targets": "--lora-targets", "lora_bias": "--lora-bias",
                 "peft_task_type": "--peft-task-type", "modules_to_save": "--modules-to-save",
                 "freeze_layers": "--freeze-layers"}
_FREEZE_FLAGS = {"embeddings": "--freeze-embeddings", "all_but_head": "--freeze-all-but-head"}


def cli_command(inv: Any, s: costs.Settings, gpu: int, preset: str | None, raw: Mapping[str, Any],
                plan_query: Mapping[str, str], name: str | None = None, fit: bool = False) -> str:
    """The command that prints this step with the CLI: ``--preset`` when the model is the preset's unchanged
    (``preset``), else the config on stdin (the values as the model was built with them); the class, the pooler,
    the plan, the step and the card. Every argument shell-quoted."""
    args = ["python", "-m", "calculator"]
    stdin = None
    if preset:
        args += ["--preset", preset]
    else:
        config = {k: inv.config.get(k, v) for k, v in raw.items() if isinstance(k, str)}
        config["model_type"] = inv.model_type
        stdin = json.dumps(config, ensure_ascii=False, separators=(",", ":"))
        args += ["--config", "-"]
    args += ["--architecture", inv.architecture]
    arch = getattr(inv, "arch", None)
    if arch is not None and arch.pooler is None and not inv.pooler:
        args.append("--no-pooler")
    for key, value in plan_query.items():
        if key == "freeze" and value in _FREEZE_FLAGS:
            args.append(_FREEZE_FLAGS[value])
        elif key in _PLAN_OPTIONS:
            args += [_PLAN_OPTIONS[key], value]
    args += ["--batch", str(s.batch), "--seq-len", str(s.seq_len), "--dtype", s.dtype, "--optimizer", s.optimizer]
    if s.checkpointing:
        args += ["--grad-checkpointing"] + (["reentrant"] if s.reentrant else [])
    if s.attention != options.ATTENTION.default:
        args += ["--attention", s.attention]
    if s.autocast:
        args += ["--mixed-precision", s.autocast]
    args += ["--gpu-gb", str(gpu)]
    if fit:  # the panel's search: its budget is the card's N GiB
        args += ["--fit-gib", str(gpu)]
    if name:
        args += ["--label", name]
    args += ["--format", "markdown"]
    command = " ".join(shlex.quote(a) for a in args)
    return command if stdin is None else f"echo {shlex.quote(stdin)} | {command}"


def forum_markdown(inv: Any, c: costs.Costs, lang: str, gpu: int, plan: Any = None,
                   notes: list[dict[str, str]] | None = None, name: str | None = None, command: str | None = None,
                   fit: Mapping[str, Any] | None = None, fit_note: str | None = None) -> str:
    """One block a forum answer can paste (issue 35, reader M2): the model and class, the notes on how the config
    was read, the plan (peft's line and its warnings), the step's assumptions and figures, the sum against the
    card, and the command that prints it; the page appends the link (``calculator.js``)."""
    model = f"`{inv.architecture}`" + paren(inv.model_type, lang, aside=True)
    out = (f"**{md_text(name)}** · {model}" if name else model) + "\n\n"
    out += notes_block(list(notes or ()), True)
    if plan is not None:
        out += plan_report(plan, lang, markdown=True) + "\n"
    out += render(c, lang, markdown=True, grouped=grouped_convolutions(inv), inv=inv, gpu=gpu, fit=fit,
                  fit_note=fit_note)
    if command:
        fence = "```"
        while fence in command:
            fence += "`"
        out += f"\n{label('command', lang)}\n\n{fence}sh\n{command}\n{fence}\n"
    return out


def error(exc: CalcError, lang: str) -> str:
    return f"error: {exc.code}: {exc.message(lang)}"


# ------------------------------------------------------------------ the page

#: The page's query keys for the step (kept in the share link), as :mod:`calculator.options` declares them.
PAGE_KEYS: tuple[str, ...] = options.keys("step")
#: Sequence lengths the chart plots FLOPs and activation memory at (the L² of eager attention shows).
SERIES_LENGTHS: tuple[int, ...] = (16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192)


def ckpt_query(s: costs.Settings) -> str:
    """The link's ``ckpt`` for checkpointing that is on: the page menu's value for its kind
    (:data:`calculator.options.CKPT`: ``1``, non-reentrant, transformers' default; ``reentrant``)."""
    return next(c.value for c in options.CKPT.choices if costs.checkpointing_mode(c.value) == s.checkpointing_mode)


def page_settings(params: Any) -> costs.Settings:
    """The step's settings from the page's query (strings); unset, each takes its option's default (B 32, L 128)."""
    defaults = options.defaults("step")

    def get(key: str) -> Any:
        value = params.get(key)
        return defaults[key] if value is None else value

    # ckpt: 0 (off), 1 (non-reentrant, transformers' default) or reentrant; any other value is an error beside
    # its field (costs_checkpointing_mode), never read as off.
    return costs.settings(get("batch"), get("seq_len"), get("dtype"), get("optimizer"), get("ckpt"), get("attention"),
                          get("mixed_precision"))


#: Most layer passes the chart may cost in all (each point is a whole simulated step: a layer is one pass, two
#: with gradient checkpointing, which replays it). A 12-layer model gets every point; 512 layers get 4 (2 with
#: checkpointing), so every input within the bounds answers well inside the page's 20 s watchdog
#: (benchmarks/engine_speed.py prints the figures).
MAX_SERIES_PASSES = 2048


def series_lengths(inv: Any, s: costs.Settings) -> list[int]:
    """The lengths the chart is drawn at: :data:`SERIES_LENGTHS` the position table takes, and L itself; for
    deep models fewer, spread over that range, so that points × passes per point ≤ :data:`MAX_SERIES_PASSES`
    (at least L and one other)."""
    model = costs.cost_model(inv)
    longest = model.max_seq_len(inv.config) if model.max_seq_len is not None else None
    lengths = sorted({n for n in SERIES_LENGTHS if longest is None or n <= longest} | {s.seq_len})
    passes = max(inv.num_layers, 1) * (2 if s.checkpointing else 1)
    points = max(2, MAX_SERIES_PASSES // passes)
    if len(lengths) <= points:
        return lengths
    others = [n for n in lengths if n != s.seq_len]
    if points == 2:
        picked = [others[-1] if others[-1] > s.seq_len else others[0]]
    else:
        picked = [others[round(i * (len(others) - 1) / (points - 2))] for i in range(points - 1)]
    return sorted(set(picked) | {s.seq_len})


def series(inv: Any, s: costs.Settings, plan: Any, first: costs.Costs | None = None) -> list[dict[str, int]]:
    """FLOPs (forward + backward) and activation bytes against L, same B, dtype, optimizer, plan.

    ``first`` is the step at L itself, already worked out (not run again). A length whose figures pass
    2^53 (``costs_too_large``) is left out of the chart: the panel's own L was within it.
    """
    out = []
    for n in series_lengths(inv, s):
        try:
            c = first if first is not None and n == s.seq_len else costs.compute(inv, replace(s, seq_len=n), plan)
        except CalcError as exc:
            if exc.code != "costs_too_large":
                raise
            continue
        out.append({"seq_len": n, "flops": c.forward + c.backward, "activations": c.activations})
    return out


#: Most layer passes the page's search for the largest batch and length may cost per step (a layer is one pass,
#: two under gradient checkpointing). The search tries some 30 to 80 steps (doubling, then bisection, for the
#: batch and for the length); DeBERTa-v3-large's 24 layers take well under a second in CPython, a 512-layer model
#: many seconds, too long for the page's watchdog inside Pyodide (benchmarks/fit_search.py prints the figures).
#: Deeper, the panel says so and gives the CLI's command, which searches with the same engine.
MAX_FIT_PASSES = 64


def page_flag(params: Any, key: str) -> bool:
    """A checkbox of the panel from the query: on for 1/true/on/yes, off for ""/0/false/off/no (``not_boolean``
    beside it otherwise, never read as off)."""
    value = params.get(key)
    text = "" if value is None else str(value).strip().lower()
    if text not in ("", "0", "false", "off", "no", "1", "true", "on", "yes"):
        raise CalcError("not_boolean", key=key, value=value)
    return text in ("1", "true", "on", "yes")


def page_fit(inv: Any, s: costs.Settings, plan: Any, gpu: int, c: costs.Costs,
             lang: str) -> tuple[dict[str, Any] | None, str | None]:
    """The panel's search (:func:`calculator.costs.fit.fit`) with the card's N GiB as the budget: (``costs.fit``,
    None), or (None, the sentence saying why there is no search: the weights alone exceed the card, or the model
    is deeper than :data:`MAX_FIT_PASSES` allows the page)."""
    from ..costs.fit import fit as search

    passes = max(inv.num_layers, 1) * (2 if s.checkpointing else 1)
    if passes > MAX_FIT_PASSES:
        return None, label("fit_too_deep", lang, layers=inv.num_layers,
                           ckpt=label("fit_too_deep_ckpt", lang) if s.checkpointing else "",
                           option=f"--fit-gib {gpu}")
    try:
        return search(inv, s, plan, gpu * GIB, c.weights), None
    except CalcError as exc:
        if exc.code != "peak_budget_below_weights":
            raise
        return None, label("fit_weights", lang, gpu=gpu, weights=gib(c.weights))


def peak_dict(c: costs.Costs, lang: str) -> dict[str, Any] | None:
    """The panel's peak: the figure (None where not exact), its proven bounds, where it is and the largest items
    live then (``costs.peak_at``), and the sentence the CLI prints (:func:`peak_line`)."""
    p = c.peak
    if p is None:
        return None
    bounds = peak_bounds(p)
    return {"bytes": p.bytes, "lower": bounds[0] if bounds else None, "upper": bounds[1] if bounds else None,
            "at": p.at_dict(), "line": peak_line(c, lang), "bytes_512": p.bytes_512}


def page_answer(inv: Any, plan: Any, params: Any, lang: str, notes: list[dict[str, str]] | None = None,
                name: str | None = None, preset: str | None = None, raw: Mapping[str, Any] | None = None,
                plan_query: Mapping[str, str] | None = None, cli_label: str | None = None) -> dict[str, Any]:
    """The panel's data for a training step (inference mode is :func:`.embed.page_answer`, which the worker's
    :func:`calculator.api.costs_answer` picks): the figures, the step's assumptions, the sum against the card (``gpu_gb``, default 24),
    the one Markdown block a forum answer pastes (:func:`forum_markdown`) and the text, the chart's series, and
    the query keys for the link.

    Raises :class:`CalcError` (the caller places it: :func:`calculator.page.fields.error_dict`).
    """
    s = page_settings(params)
    c = costs.compute(inv, s, plan)
    gpu = gpu_gb(params.get("gpu_gb", "24"))
    grouped = grouped_convolutions(inv)
    query = {"batch": str(s.batch), "seq_len": str(s.seq_len)}
    if s.dtype != options.DTYPE.default:
        query["dtype"] = s.dtype
    if s.optimizer != options.OPTIMIZER.default:
        query["optimizer"] = s.optimizer
    if s.checkpointing:
        query["ckpt"] = ckpt_query(s)
    if s.attention != options.ATTENTION.default:
        query["attention"] = s.attention
    if s.autocast:
        query["mixed_precision"] = s.autocast
    if gpu != 24:
        query["gpu_gb"] = str(gpu)
    asked = page_flag(params, options.FIT.key)
    if asked:
        query[options.FIT.key] = "1"
    verdict, verdict_lines = step_fits(c, gpu, lang)
    command = cli_command(inv, s, gpu, preset, raw or {}, plan_query or {}, cli_label, fit=asked)
    searched, fit_note = page_fit(inv, s, plan, gpu, c, lang) if asked else (None, None)
    text = notes_block(list(notes or ())) + render(c, lang, inv=inv, gpu=gpu, fit=searched, fit_note=fit_note)
    search_lines = (fit_lines(searched, lang, unknown_reason(c, lang)) if searched is not None else [fit_note or ""]) if asked else []
    return {
        "costs": c.to_dict(), "total_bytes": c.memory_total, "gpu_gb": gpu, "fits": verdict, "fit_lines": verdict_lines,
        "assumptions": [{"key": k, "text": t} for k, t in assumptions(inv, c.settings, lang, c.attention_fallback, c.sdpa_math)],
        "markdown": forum_markdown(inv, c, lang, gpu, plan, notes, name, command, searched, fit_note), "text": text,
        "command": command, "series": series(inv, s, plan, c), "query": query,
        "grouped_convolutions": grouped, "peak": peak_dict(c, lang), "architecture": inv.architecture,
        "fit": searched, "fit_asked": asked, "search_lines": search_lines,
    }
