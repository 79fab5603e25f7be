"""The training-cost panel's answer in inference mode (issue 32 item 3: "embed N passages of L tokens"): the
figures of :mod:`calculator.views.embed` as a table (each exact integer in ``data-value``), the peak's sentence,
the card's verdict, the estimated time labelled an estimate, and the notes. Imported only when a reader asks for
inference: the page's first load never runs it. Every value goes through :func:`calculator.html.h` (escaped).
"""
from __future__ import annotations

from typing import Any, Mapping

from ..html import h, join
from ..views import costs as cv
from ..views import embed as ev

#: Each row's key (``data-embed``), in :func:`calculator.views.embed.rows`' order.
ROW_KEYS: tuple[str, ...] = ("passages", "forwards", "flops", "flops_one", "weights", "peak", "seconds")


def answer(result: dict[str, Any], lang: str) -> dict[str, Any]:
    """:func:`calculator.views.embed.page_answer`'s data with the panel's markup added (``html``)."""
    c: Mapping[str, Any] = result["costs"]
    values = (c["embed"]["passages"], c["embed"]["forwards"], c["embed"]["flops"], c["flops"]["forward"],
              c["memory"]["weights"], c["memory"]["peak"], None)
    body = [h("tr", h("th", name, scope="row"),
              h("td", value, h("span", readable, class_="calc-costs-under") if readable else None, class_="num"),
              h("td", readable, class_="num calc-costs-size"), data_embed=key,
              data_value="" if n is None else n)
            for key, n, (name, value, readable) in zip(ROW_KEYS, values, result["rows"])]
    head = h("thead", h("tr", h("th", cv.label("item", lang), scope="col"),
                        h("th", cv.label("value", lang), scope="col", class_="num"),
                        h("th", cv.label("size", lang), scope="col", class_="num calc-costs-size")))
    table = h("div", h("table", head, h("tbody", body), class_="calc-table calc-costs-table calc-embed-table"),
              class_="calc-scroll", tabindex="0", role="region", aria_label=ev.word("flops_total", lang))
    s = c
    title = ev.word("title", lang, passages=cv.fmt_int(c["embed"]["passages"], lang), seq_len=s["seq_len"],
                    batch=c["embed"]["batch"])
    peak = result["peak"]
    html = join([
        h("p", h("strong", title), class_="calc-costs-settings"),
        h("ul", [h("li", a["text"], data_assumption=a["key"]) for a in result["assumptions"]],
          class_="calc-costs-assumptions", aria_label=cv.label("assumptions", lang)),
        table,
        h("p", peak["line"], class_="calc-costs-peak", data_peak=peak["bytes"] if peak["bytes"] is not None else "",
          data_lower=peak["lower"] if peak["lower"] is not None else "",
          data_upper=peak["upper"] if peak["upper"] is not None else "", data_phase="forward"),
        h("div", [h("p", line) for line in result["fit_lines"]], h("p", cv.label("gb_note", lang), class_="calc-note"),
          class_="calc-costs-fits", data_fits=result["fits"], data_gpu_gb=result["gpu_gb"]),
        h("p", result["time_note"], class_="calc-note calc-embed-estimate",
          data_seconds=repr(c["embed"]["seconds_estimate"]), data_tflops=repr(c["embed"]["tflops"])),
        h("p", result["inference_note"], class_="calc-note"),
    ])
    out = {k: v for k, v in result.items() if k not in ("fit_lines", "rows")}
    return {**out, "html": str(html)}


__all__ = ["ROW_KEYS", "answer"]
