"""The panel's inference mode (issue 32, item 3): "embed N passages of L tokens", in batches of B.

What it gives, from :func:`calculator.costs.compute_inference` (the inference span: ``model.eval()``, one forward
under ``torch.no_grad()``, its outputs kept):

* the FLOPs of embedding all N passages, exactly: ``N // B`` forwards at batch B and, if ``N % B`` is not 0, one
  at batch ``N % B`` (each counted by the engine, so nothing assumes the FLOPs are proportional to B);
* the peak of live memory of one forward at the largest batch run, ``min(B, N)`` (each forward starts from the
  same state: the weights, buffers and its ``input_ids``), exact where the engine replays the forward, else its
  proven bounds;
* a time: those FLOPs divided by the GPU's stated peak TFLOPS, **an estimate** and a lower bound on the real
  time (no GPU runs every operation at its peak, and the elementwise operations, which FlopCounterMode does not
  count, take time too).

The training options (optimizer, checkpointing) do not apply and are left out (the CLI's ``--inference`` refuses
them); a LoRA or freezing plan is refused (``costs_inference_plan``). Standard library only.
"""
from __future__ import annotations

import math
import shlex
from dataclasses import replace
from typing import Any, Mapping

from .. import costs, options
from ..errors import CalcError
from ..i18n import L, colon, pick
from . import costs as step_view
from . import inference as inference_view
from .numbers import display_width, fmt_binary_bytes, fmt_int, fmt_short
from .report import _table

#: Most passages the mode takes (the FLOPs stay below 2^53: costs_too_large otherwise, as for a step).
MAX_PASSAGES = 10**12
#: The largest stated peak the field takes, in TFLOPS (today's largest GPUs state a few thousand).
MAX_TFLOPS = 100_000

WORDS: dict[str, dict[str, str]] = {
    "title": L("Embedding {passages} passages of L = {seq_len} tokens, in batches of B = {batch}",
               "为 {passages} 段长度 L = {seq_len} 的文本生成嵌入，每批 B = {batch}"),
    "passages": L("passages N", "文本段数 N"),
    "batches": L("forwards run", "前向传播次数"),
    "flops_total": L("FLOPs, all N passages", "FLOPs，全部 N 段"),
    "flops_one": L("FLOPs, one forward at B", "FLOPs，批大小 B 的一次前向"),
    "per_passage": L("FLOPs per passage", "每段文本的 FLOPs"),
    "weights": L("memory · weights", "显存 · 权重"),
    "peak": L("memory · peak of one forward at B = {batch}", "显存 · 批大小 B = {batch} 的一次前向的峰值"),
    "time": L("time at {tflops} TFLOPS (estimate)", "{tflops} TFLOPS 下的时间（估算）"),
    "not_given": L("not given", "暂不给出"),
    "forwards": L("{full} forwards at B = {batch}{rest}", "{full} 次 B = {batch} 的前向传播{rest}"),
    "rest": L(" and one at B = {rest}", "，以及一次 B = {rest} 的前向传播"),
    "time_note": L(
        "Estimated time: the FLOPs of all N passages divided by {tflops} × 10^12 FLOPs per second, the GPU's stated "
        "peak. It is an estimate and a lower bound: no GPU runs every operation at its stated peak, and the "
        "elementwise operations, which the FLOPs leave out, take time too. It leaves out tokenisation and moving "
        "data to the GPU.",
        "估算时间：全部 N 段的 FLOPs 除以每秒 {tflops} × 10^12 次浮点运算，即 GPU 的标称峰值。这是估算，而且是下限："
        "没有哪块 GPU 能让每个运算都跑到标称峰值，FLOPs 不计的逐元素运算也要花时间。"
        "不含分词和把数据搬到 GPU 上的时间。",
    ),
    "not_applied": L(
        "Inference: model.eval() (dropout off), one forward per batch under torch.no_grad(), its outputs kept; the "
        "training settings (optimizer, gradient checkpointing) do not apply.",
        "推理：model.eval()（关闭 dropout），每批在 torch.no_grad() 下做一次前向传播并保留输出；训练设置（优化器、梯度检查点）不适用。",
    ),
    "seconds": L("{n} s", "{n} 秒"),
    "minutes": L("{n} min", "{n} 分钟"),
    "hours": L("{n} h", "{n} 小时"),
    "days": L("{n} days", "{n} 天"),
}


def word(key: str, lang: str, **params: Any) -> str:
    return pick(WORDS[key], lang, **params)


def page_mode(params: Any) -> str:
    """The panel's mode from the query: "train" (default) or "inference" (``costs_mode`` otherwise)."""
    value = params.get(options.MODE.key)
    text = options.MODE.default if value in (None, "") else str(value).strip().lower()
    if text not in [c.value for c in options.MODE.choices]:
        raise CalcError("costs_mode", key=options.MODE.key, value=value)
    return text


def tflops(value: Any) -> float:
    """The GPU's stated peak TFLOPS: a number > 0 and ≤ :data:`MAX_TFLOPS` (decimals allowed: 19.5)."""
    text = "" if value is None else str(value).strip()
    try:
        x = float(text)
    except ValueError:
        raise CalcError("costs_tflops", key=options.TFLOPS.key, value=value, maximum=fmt_int(MAX_TFLOPS)) from None
    if not math.isfinite(x) or x <= 0 or x > MAX_TFLOPS:
        raise CalcError("costs_tflops", key=options.TFLOPS.key, value=value, maximum=fmt_int(MAX_TFLOPS))
    return x


def _tflops_text(x: float) -> str:
    return str(int(x)) if x == int(x) else f"{x:g}"


def duration(seconds: float, lang: str) -> str:
    """Seconds as a reader reads them: three significant figures in s, min, h or days."""
    for key, unit in (("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= 2 * unit:
            return word(key, lang, n=f"{seconds / unit:.3g}")
    return word("seconds", lang, n=f"{seconds:.3g}")


def embed(inv: Any, s: costs.Settings, passages: int) -> dict[str, Any]:
    """The figures: forwards run, FLOPs of all N passages (exact), and the inference span at ``min(B, N)``."""
    batch = min(s.batch, passages)
    one = costs.compute_inference(inv, replace(s, batch=batch))
    full, rest = divmod(passages, batch)
    total = full * one.forward
    rest_costs = costs.compute_inference(inv, replace(s, batch=rest)) if rest else None
    if rest_costs is not None:
        total += rest_costs.forward
    if total > costs.MAX_FIGURE:
        raise CalcError("costs_embed_too_large", key=options.PASSAGES.key, passages=f"{passages:,}", value=f"{total:,}")
    return {"one": one, "batch": batch, "full": full, "rest": rest, "flops": total}


def rows(figures: Mapping[str, Any], passages: int, rate: float, lang: str) -> list[tuple[str, str, str]]:
    one = figures["one"]
    peak = one.peak.bytes
    rest = word("rest", lang, rest=fmt_int(figures["rest"], lang)) if figures["rest"] else ""
    return [
        (word("passages", lang), fmt_int(passages), ""),
        (word("batches", lang), fmt_int(figures["full"] + bool(figures["rest"])),
         word("forwards", lang, full=fmt_int(figures["full"], lang), batch=figures["batch"], rest=rest)),
        (word("flops_total", lang), fmt_int(figures["flops"]), fmt_short(figures["flops"], lang)),
        (word("flops_one", lang), fmt_int(one.forward), fmt_short(one.forward, lang)),
        (word("weights", lang), fmt_int(one.weights), fmt_binary_bytes(one.weights)),
        (word("peak", lang, batch=figures["batch"]), fmt_int(peak) if peak is not None else word("not_given", lang),
         fmt_binary_bytes(peak) if peak is not None else ""),
        (word("time", lang, tflops=_tflops_text(rate)), "", duration(figures["flops"] / (rate * 1e12), lang)),
    ]


def render(figures: Mapping[str, Any], passages: int, rate: float, lang: str, gpu: int, markdown: bool) -> str:
    """The mode's table, its note, the peak's sentence and the card's verdict, as text or Markdown."""
    one = figures["one"]
    s = one.settings
    title = word("title", lang, passages=fmt_int(passages, lang), seq_len=s.seq_len, batch=figures["batch"])
    table = rows(figures, passages, rate, lang)
    lines = [word("not_applied", lang), inference_view.peak_line(one, lang),
             *inference_view.fits(one, gpu, lang)[1], step_view.label("gb_note", lang),
             word("time_note", lang, tflops=_tflops_text(rate)), inference_view.label("note", lang)]
    heading = f"{title}{colon(lang)}{inference_view.heading(one, lang)}"
    if markdown:
        head = (step_view.label("item", lang), step_view.label("value", lang), step_view.label("size", lang))
        return f"**{heading}**\n\n" + _table(head, "lrr", table) + "".join("\n" + line + "\n" for line in lines)
    width = max(display_width(name) for name, _, _ in table) + 2
    digits = max(display_width(value) for _, value, _ in table)
    body = [f"{name}{' ' * (width - display_width(name))}{' ' * (digits - display_width(value))}{value}  {readable}"
            .rstrip() for name, value, readable in table]
    return "\n".join([heading] + body + lines) + "\n"


def command(inv: Any, s: costs.Settings, gpu: int, preset: str | None, raw: Mapping[str, Any], name: str | None) -> str:
    """The CLI's command for one forward at B (``--inference``; the CLI has no N, so it prints one batch's
    figures): :func:`calculator.views.costs.cli_command`'s model part, then the inference span's options only."""
    step = step_view.cli_command(inv, s, gpu, preset, raw, {}, None)
    model, _, _ = step.partition(" --batch ")
    args = ["--batch", str(s.batch), "--seq-len", str(s.seq_len), "--dtype", s.dtype]
    if s.attention != options.ATTENTION.default:
        args += ["--attention", s.attention]
    if s.autocast:
        args += ["--mixed-precision", s.autocast]
    args += ["--inference", "--gpu-gb", str(gpu)] + (["--label", name] if name else []) + ["--format", "markdown"]
    return model + " " + " ".join(shlex.quote(a) for a in args)


def page_answer(inv: Any, plan: Any, params: Any, lang: str, notes: list[dict[str, str]] | None = None,
                name: str | None = None, preset: str | None = None, raw: Mapping[str, Any] | None = None,
                cli_label: str | None = None) -> dict[str, Any]:
    """The panel's data in inference mode, with the keys :func:`calculator.views.costs.page_answer` gives (the
    figures under ``costs``, ``mode`` "inference"; the one Markdown block; the link's query)."""
    if plan is not None:
        raise CalcError("costs_inference_plan")
    get = lambda key: params.get(key) if params.get(key) not in (None, "") else options.BY_KEY[key].default  # noqa: E731
    s = costs.settings(get("batch"), get("seq_len"), get("dtype"), "adamw", False, get("attention"),
                       get("mixed_precision"))
    passages = costs._positive("passages", str(get("passages")).strip(), MAX_PASSAGES, options.PASSAGES.label)
    rate = tflops(get("tflops"))
    gpu = step_view.gpu_gb(params.get("gpu_gb", "24"))
    figures = embed(inv, s, passages)
    one = figures["one"]
    query = {"mode": "inference", "batch": str(s.batch), "seq_len": str(s.seq_len)}
    for key, value in (("dtype", s.dtype), ("attention", s.attention), ("mixed_precision", s.autocast or ""),
                       ("passages", str(passages)), ("tflops", _tflops_text(rate)), ("gpu_gb", str(gpu))):
        if value != options.BY_KEY[key].default:
            query[key] = value
    verdict, verdict_lines = inference_view.fits(one, gpu, lang)
    cli = command(inv, s, gpu, preset, raw or {}, cli_label)
    text = step_view.notes_block(list(notes or ())) + render(figures, passages, rate, lang, gpu, False)
    model = f"`{inv.architecture}`"
    markdown = (f"**{step_view.md_text(name)}** · {model}\n\n" if name else model + "\n\n")
    markdown += step_view.notes_block(list(notes or ()), True) + render(figures, passages, rate, lang, gpu, True)
    fence = "```"
    while fence in cli:
        fence += "`"
    markdown += f"\n{step_view.label('command', lang)}\n\n{fence}sh\n{cli}\n{fence}\n"
    data = one.to_dict()
    data["embed"] = {"passages": passages, "batch": figures["batch"], "forwards": figures["full"] + bool(figures["rest"]),
                     "flops": figures["flops"], "tflops": rate, "seconds_estimate": figures["flops"] / (rate * 1e12)}
    return {
        "costs": data, "gpu_gb": gpu, "fits": verdict, "fit_lines": verdict_lines, "markdown": markdown,
        "text": text, "command": cli, "query": query, "series": [], "peak": _peak(one, lang),
        "assumptions": [{"key": "inference", "text": word("not_applied", lang)}], "rows": rows(figures, passages, rate, lang),
        "time_note": word("time_note", lang, tflops=_tflops_text(rate)), "fit_asked": False, "search_lines": [],
        "inference_note": inference_view.label("note", lang),
    }


def _peak(one: Any, lang: str) -> dict[str, Any]:
    """The panel's peak (as :func:`calculator.views.costs.peak_dict`) with the inference span's own sentence."""
    bounds = step_view.peak_bounds(one.peak)
    return {"bytes": one.peak.bytes, "lower": bounds[0] if bounds else None, "upper": bounds[1] if bounds else None,
            "at": one.peak.at_dict(), "line": inference_view.peak_line(one, lang), "bytes_512": None}


__all__ = ["MAX_PASSAGES", "MAX_TFLOPS", "WORDS", "embed", "page_answer", "page_mode", "tflops", "word"]
