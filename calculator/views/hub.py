"""Text and Markdown for a model read from the Hub (:mod:`calculator.hub`): where it came from, pinned to its
commit, and the file against the model, with each name in one list only, its count and why.

The numbers are the checkpoint's header (every stored tensor, as the Hub counts), the Hub API's own
``safetensors.total``, and the inventory of the class built; nothing here counts anything.
"""
from __future__ import annotations

from typing import Any

from ..i18n import L, colon, join_list, paren, pick
from .numbers import fmt_int
from .report import _table

WORDS: dict[str, dict[str, str]] = {
    "from": L("From the Hub: {repo} at commit {sha}", "来自 Hub：{repo}，提交 {sha}"),
    "requested": L("asked for {revision}", "请求的版本为 {revision}"),
    "checkpoint_class": L("The class the checkpoint was saved from (architectures[0]): {architecture}; "
                          "count it with {option}",
                          "保存这个 checkpoint 的类（architectures[0]）：{architecture}；计算它请加 {option}"),
    "title": L("The file and the model", "文件与模型"),
    "file": L("{files}: {parameters} parameters in {tensors} tensors ({dtypes})",
              "{files}：{tensors} 个张量，共 {parameters} 个参数（{dtypes}）"),
    "no_file": L("No safetensors file (model.safetensors or its index): the file's count is not known",
                 "没有 safetensors 文件（model.safetensors 或其索引）：无法得知文件中的参数量"),
    "api": L("The Hub's count (API safetensors.total): {total}", "Hub 显示的参数量（API 的 safetensors.total）：{total}"),
    "api_none": L("The Hub's count: none (the Hub counts safetensors files only)",
                  "Hub 显示的参数量：无（Hub 只统计 safetensors 文件）"),
    "model": L("{architecture} (as from_pretrained builds it): {total}", "{architecture}（即 from_pretrained 构建的模型）：{total}"),
    "only_file": L("Only in the file: {n} tensors, {count} elements", "只在文件中：{n} 个张量，共 {count} 个元素"),
    "only_model": L("Only in the model: {n} tensors, {count} elements", "只在模型中：{n} 个张量，共 {count} 个元素"),
    "none_file": L("Only in the file: none", "只在文件中：无"),
    "none_model": L("Only in the model: none", "只在模型中：无"),
    "mismatched": L("Shapes that differ (from_pretrained refuses them): {names}",
                    "形状不一致的张量（from_pretrained 会拒绝加载）：{names}"),
    "name": L("Tensor", "张量"),
    "count": L("Elements", "元素数"),
    "why": L("Why", "原因"),
    "sum": L("Sum", "合计"),
    "sentence": L("SentenceTransformer(id) adds, after the transformer:", "SentenceTransformer(id) 在 transformer 之后还有："),
    "dense": L("Dense {path}: nn.Linear({inp}, {out}{bias}): {count} parameters",
               "Dense {path}：nn.Linear({inp}, {out}{bias})，{count} 个参数"),
    "dense_file": L("its file stores {count}", "其文件存有 {count}"),
    "no_params": L("{kind} (no parameters)", "{kind}（无参数）"),
    "sentence_total": L("SentenceTransformer(id) in all: {total} parameters", "SentenceTransformer(id) 合计：{total} 个参数"),
}


def _w(key: str, lang: str, **params: Any) -> str:
    return pick(WORDS[key], lang, **params)


def render(data: dict[str, Any], lang: str = "en", markdown: bool = False) -> str:
    """The section the CLI appends after its report: ``data`` is :func:`calculator.hub.to_json`'s object
    (the messages of ``differences`` already in ``lang``)."""
    code = (lambda s: f"`{s}`") if markdown else str  # noqa: E731
    c = colon(lang)
    lines = [_w("from", lang, repo=code(data["id"]), sha=code(data["revision"]))
             + ("" if data["requested"] == data["revision"]
               else paren(_w("requested", lang, revision=data["requested"]), lang, aside=True))]
    model = data["model"]
    if data.get("architecture") and data["architecture"] != model["architecture"]:
        option = f"--model {data['id']}@{data['revision']} --architecture {data['architecture']}"
        lines.append(_w("checkpoint_class", lang, architecture=code(data["architecture"]), option=code(option)))
    out = "\n".join(lines) + "\n\n"
    out += (f"**{_w('title', lang)}**" if markdown else _w("title", lang)) + "\n\n"
    facts = []
    f = data["file"]
    if f:
        dtypes = join_list([f"{k}{c}{fmt_int(v, lang)}" for k, v in f["by_dtype"].items()], lang)
        files = join_list(f["files"], lang) if len(f["files"]) <= 3 else \
            f"{f['files'][0]} … {f['files'][-1]}" + paren(str(len(f["files"])), lang, aside=True)
        facts.append(_w("file", lang, files=code(files), parameters=fmt_int(f["parameters"], lang),
                        tensors=fmt_int(f["tensors"], lang), dtypes=dtypes))
    else:
        facts.append(_w("no_file", lang))
    facts.append(_w("api", lang, total=fmt_int(data["api_total"], lang)) if data["api_total"] is not None
                 else _w("api_none", lang))
    facts.append(_w("model", lang, architecture=code(model["architecture"]), total=fmt_int(model["total"], lang)))
    out += "".join(("- " if markdown else "  ") + line + "\n" for line in facts) + "\n"
    for where, key in (("file", "only_file"), ("model", "only_model")):
        rows = [d for d in data["differences"] if d["where"] == where]
        if not rows:
            out += _w("none_" + where, lang) + "\n\n"
            continue
        out += _w(key, lang, n=fmt_int(len(rows), lang), count=fmt_int(sum(d["count"] for d in rows), lang)) + "\n\n"
        if markdown:
            out += _table([_w("name", lang), _w("count", lang), _w("why", lang)], "lrl",
                          [[f"`{d['name']}`", fmt_int(d["count"], lang), d["message"]] for d in rows]) + "\n"
        else:
            width = max(len(d["name"]) for d in rows) + 2
            out += "".join(f"  {d['name']:<{width}}{fmt_int(d['count'], lang):>14}  {d['message']}\n" for d in rows)
            out += "\n"
    if data["mismatched"]:
        out += _w("mismatched", lang, names=join_list([code(n) for n in data["mismatched"]], lang)) + "\n\n"
    st = data.get("sentence_transformers")
    if st:
        parts = []
        dense = {d["path"]: d for d in st["dense"]}
        for m in st["modules"][1:] if st["modules"] and st["modules"][0]["type"] == "Transformer" else st["modules"]:
            d = dense.get(m["path"])
            if d is None:
                parts.append(_w("no_params", lang, kind=m["type"]))
                continue
            text = _w("dense", lang, path=code(d["path"]), inp=d["in_features"], out=d["out_features"],
                      bias="" if d["bias"] else ", bias=False", count=fmt_int(d["parameters"], lang))
            if d["stored"] is not None:
                text += paren(_w("dense_file", lang, count=fmt_int(d["stored"], lang)), lang, aside=True)
            parts.append(text)
        out += _w("sentence", lang) + "\n" + "".join(("- " if markdown else "  ") + p + "\n" for p in parts)
        out += _w("sentence_total", lang, total=fmt_int(st["total"], lang)) + "\n"
    return out.rstrip("\n") + "\n"



def differences_table(differences: Any, architecture: str, lang: str = "en") -> str:
    """Tensor | elements | why, for :class:`calculator.hub.Difference` rows (the pages' file-vs-model tables),
    with their sum; the words are :data:`calculator.hub.REASONS`'."""
    from ..hub import REASONS

    rows = [[f"`{d.name}`" + (f" ({d.dtype})" if d.dtype and d.dtype != "F32" else ""), fmt_int(d.count, lang),
             pick(REASONS[d.reason], lang, other=f"`{d.other}`", architecture=f"`{architecture}`")]
            for d in differences]
    rows.append([f"**{_w('sum', lang)}**", f"**{fmt_int(sum(d.count for d in differences), lang)}**", ""])
    return _table([_w("name", lang), _w("count", lang), _w("why", lang)], "lrl", rows)
