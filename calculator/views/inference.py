"""The inference span's costs (``--inference``) as text and Markdown in both languages.

The CLI computes :func:`calculator.costs.compute_inference` and appends :func:`render` (text/Markdown) or puts
:meth:`~calculator.costs.InferenceCosts.to_dict` under ``"costs"`` (JSON). The words shared with the training
step's table (FLOPs, forward, weights, the peak's sentence) come from :mod:`.costs`.
"""
from __future__ import annotations

from typing import Any

from .. import costs
from ..i18n import L, colon, pick, punct
from . import costs as step_view
from .numbers import display_width, fmt_binary_bytes, fmt_int
from .report import _table

LABELS: dict[str, dict[str, str]] = {
    "title": L("Inference (model.eval(), one forward under torch.no_grad(), outputs kept)",
               "推理（model.eval()，在 torch.no_grad() 下做一次前向传播，保留输出）"),
    "settings": {"en": "B = {batch}, L = {seq_len}, {dtype}, attention {attention}",
                 "zh": "B = {batch}，L = {seq_len}，{dtype}，注意力 {attention}"},
    "peak": L("peak of live memory", "显存峰值（同时存活的张量）"),
    "not_given": L("not given", "暂不给出"),
    "note": L("FLOPs as torch.utils.flop_counter counts them (matrix products and convolutions; 1 multiply-add = 2 "
              "FLOPs). The peak is the largest sum of live tensor storages at any moment of the forward (weights, "
              "buffers and input_ids included; nothing is kept for a backward); it leaves out the CUDA context, "
              "kernels' workspace and the allocator's rounding.",
              "FLOPs 按 torch.utils.flop_counter 的口径统计（矩阵乘法与卷积；一次乘加 = 2 FLOPs）。峰值是前向传播中"
              "任一时刻同时存活的张量存储字节数之和的最大值（含权重、buffer 和 input_ids；推理不为反向传播保存任何张量）；"
              "不含 CUDA 上下文、算子工作区和分配器的取整。"),
    "peak_none": L("Peak of live memory: not given ({reason}); the engine gives it only where the forward is "
                   "replayed exactly, tensor by tensor, and proven against PyTorch.",
                   "显存峰值（同时存活的张量）：暂不给出（{reason}）；只有前向传播能逐个张量精确重放、并经 PyTorch "
                   "核对时，计算器才给出峰值。"),
    "reason_forward": L("this family's forward is not replayed tensor by tensor yet",
                        "这个系列的前向传播还不能逐个张量重放"),
    "reason_family": L("the peak is not cross-checked for this family yet", "这个系列的峰值尚未核对"),
    "reason_attention sdpa": L("SDPA attention is not replayed tensor by tensor yet", "SDPA 注意力还不能逐个张量重放"),
    "reason_mixed_precision": L("mixed precision is not replayed tensor by tensor yet", "混合精度还不能逐个张量重放"),
}


def _as_any(c: costs.InferenceCosts) -> Any:
    return c


def label(key: str, lang: str = "en", **params: Any) -> str:
    return pick(LABELS[key], lang, **params)


def heading(c: costs.InferenceCosts, lang: str) -> str:
    s = c.settings
    dtype = step_view.label("autocast_heading", lang, autocast=s.autocast) if s.autocast else s.dtype
    return label("settings", lang, batch=s.batch, seq_len=s.seq_len, dtype=dtype, attention=s.attention)


def rows(c: costs.InferenceCosts, lang: str) -> list[tuple[str, str, str]]:
    """(label, exact integer, readable): the forward's FLOPs, the weights, the peak (or "not given")."""
    flops = step_view.label("flops", lang)
    memory = step_view.label("memory", lang)
    peak = c.peak.bytes
    return [(f"{flops} · {step_view.label('forward', lang)}", fmt_int(c.forward), ""),
            (f"{memory} · {step_view.label('weights', lang)}", fmt_int(c.weights), fmt_binary_bytes(c.weights)),
            (f"{memory} · {label('peak', lang)}", fmt_int(peak) if peak is not None else label("not_given", lang),
             fmt_binary_bytes(peak) if peak is not None else "")]


def peak_line(c: costs.InferenceCosts, lang: str) -> str:
    """The peak's sentence (where, what is largest then), or why there is none and its proven bounds."""
    p = c.peak
    if p.bytes is not None:
        return step_view.peak_line(_as_any(c), lang) or ""  # the training step's sentence reads only ``c.peak``
    key = f"reason_{p.reason}"
    reason = label(key, lang) if key in LABELS else str(p.reason)
    line = label("peak_none", lang, reason=reason)
    bounds = step_view.peak_bounds(p)
    if bounds is None:
        return line
    lower, upper = bounds
    high = (step_view.label("peak_upper", lang, upper=fmt_binary_bytes(upper), upper_exact=fmt_int(upper, lang))
            if upper is not None else step_view.label("peak_upper_unknown", lang))
    return line + punct("sentence_gap", lang) + step_view.label(
        "peak_bounds", lang, lower=fmt_binary_bytes(lower), lower_exact=fmt_int(lower, lang), upper=high)


def fits(c: costs.InferenceCosts, gpu: int, lang: str) -> tuple[str, list[str]]:
    """"Fits in N GB?" by the peak where exact, else by its proven bounds (never by a sum)."""
    p = c.peak
    return step_view.fits(c.weights, gpu, lang, False, p.bytes, step_view.peak_bounds(p))


def render(c: costs.InferenceCosts, lang: str = "en", markdown: bool = False, gpu: int | None = None) -> str:
    """Text (aligned columns) or a Markdown table: the settings, the figures, the note, the peak's sentence and,
    given ``gpu`` (the CLI's ``--gpu-gb``), the peak against the card."""
    title = f"{label('title', lang)}{colon(lang)}{heading(c, lang)}"
    table = rows(c, lang)
    card = [peak_line(c, lang)] + (fits(c, gpu, lang)[1] + [step_view.label("gb_note", lang)] if gpu else [])
    if markdown:
        head = (step_view.label("item", lang), step_view.label("value", lang), step_view.label("size", lang))
        out = f"**{title}**\n\n" + _table(head, "lrr", table) + "\n" + label("note", lang) + "\n"
        return out + "".join("\n" + line + "\n" for line in card)
    width = max(display_width(name) for name, _, _ in table) + 2
    digits = max(display_width(value) for _, value, _ in table)
    lines = [title]
    lines += [f"{name}{' ' * (width - display_width(name))}{' ' * (digits - display_width(value))}{value}  {readable}".rstrip()
              for name, value, readable in table]
    lines.append(label("note", lang))
    lines += card
    return "\n".join(lines) + "\n"
