"""The page's model-id field (issue 33, item 4): a model on the Hub answered as a pasted config is, plus the file.

Loaded by the worker only when a reader asks for a model id (``?model=`` in a link, or the field): a
shared link without one downloads none of this, nor :mod:`calculator.hub` and :mod:`calculator.views.hub`
(``sitegen/calculator_assets.py`` ``ON_DEMAND``). The reading itself is :mod:`calculator.hub`'s, the
same program the CLI runs (``lookup``), driven by the browser's ``fetch`` (``hub.fetch_browser``); the
answer is :func:`calculator.api.render`'s for the config that came back (the base model, as
``AutoModel.from_pretrained(id)`` builds it, or the class asked for), named by the id, with its link
pinned to the commit (``model=REPO@SHA``) and the file-vs-model section the CLI prints
(:func:`calculator.hub.to_json`'s data, the words of :mod:`calculator.views.hub`).

Every error of the field goes beside it (``calc-model-error``), whatever its code: the Hub's
(``hub_*``, said as the page says them: no token, no ``--endpoint``) and a config the Hub served that
this calculator cannot count.
"""
from __future__ import annotations

import json
import re
import traceback
from dataclasses import replace
from typing import Any, Awaitable, Callable, Mapping

from .. import hub
from ..errors import CalcError
from ..html import Markup, h, join
from ..i18n import colon, join_list, paren, pick
from ..views import hub as hub_view
from ..views.numbers import fmt_int
from . import dom
from .labels import norm_lang
from .result import _table, _td
from .state import LABEL_MAX

#: The page's field: the query key (``model=``), its input's id and its error slot.
KEY = "model"
FIELD_ID = dom.field_id(None, KEY)
SLOT = f"{FIELD_ID}-error"
#: What the page reads from: huggingface.co (the page offers no other endpoint, and sends no token).
ENDPOINT = hub.DEFAULT_ENDPOINT

#: Checkpoints read in this worker, by ``repo@sha``: a pinned id asked again (a link reopened in the same
#: tab, the class changed) is answered without reading anything again; a commit never changes.
_READ: dict[str, hub.Checkpoint] = {}
KEEP = 8
_PINNED = re.compile(r"[0-9a-f]{40}")

#: The section's own words (the rest are :data:`calculator.views.hub.WORDS`, the CLI's): here, not in the
#: page's labels, so a page that never reads a model id does not carry them.
WORDS: dict[str, dict[str, str]] = {
    "hub_checkpoint_class": {"en": "The checkpoint was saved from {architecture} (architectures[0]).",
                             "zh": "这个 checkpoint 是从 {architecture}（architectures[0]）保存的。"},
    "hub_count_class": {"en": "Count {architecture}", "zh": "计算 {architecture}"},
    "hub_only_file": {"en": "Only in the file", "zh": "只在文件中"},
    "hub_only_model": {"en": "Only in the model", "zh": "只在模型中"},
}


def _u(key: str, lang: str, **params: Any) -> str:
    return pick(WORDS[key], lang, **params)


def field_error(exc: CalcError, lang: str) -> dict[str, Any]:
    """An error of the field, as :func:`calculator.page.fields.error_dict` shapes errors, beside the field."""
    out = exc.to_dict(lang, where="page")
    out.update(field=KEY, fields=[KEY], slot=SLOT, marks=[FIELD_ID])
    return out


def config_text(checkpoint: hub.Checkpoint) -> str:
    """The config.json that came back, as the paste box shows it (indented, keys in the file's order)."""
    return json.dumps(checkpoint.config, indent=2, ensure_ascii=False)


async def read(model: Any, progress: Callable[[int, int], Any] | None = None,
               transport: Callable[[hub.Request], Awaitable[hub.Response]] | None = None) -> hub.Checkpoint:
    """The checkpoint ``model`` (an id, ``id@rev`` or a Hub address) names, read by ``transport`` (the browser's
    ``fetch`` by default); ``progress(requests, bytes)`` after each answer. Raises :class:`CalcError`."""
    ref = hub.parse_model_id(model)
    if _PINNED.fullmatch(ref.revision) and ref.text in _READ:
        return _READ[ref.text]
    checkpoint = await hub.run_async(hub.lookup(ref, ENDPOINT), transport or hub.fetch_browser, progress)
    _READ[checkpoint.pinned] = checkpoint
    while len(_READ) > KEEP:  # the oldest read goes (a large model's header lists thousands of tensors)
        del _READ[next(iter(_READ))]
    return checkpoint


def answer(checkpoint: hub.Checkpoint, request: Mapping[str, Any], lang: str = "en") -> dict[str, Any]:
    """The page's answer for a checkpoint read from the Hub: :func:`calculator.api.render`'s, plus ``hub``
    (the pinned id, the config for the paste box, :func:`calculator.hub.to_json`'s data) and the file-vs-model
    section at the top of the result. ``request``: the worker's (``architecture``, ``costs``, ``forms``, ``want``).
    Raises :class:`CalcError` (a config this calculator cannot count)."""
    from .. import api
    from .state import _active_of, _request

    lang = norm_lang(lang)
    architecture = request.get("architecture") if isinstance(request.get("architecture"), str) else None
    inv, theirs = hub.build_models(checkpoint.config, architecture or None)
    comparison = hub.compare(inv, checkpoint, theirs)
    data = hub.to_json(checkpoint, inv, comparison, hub.checkpoint_architecture(checkpoint.config), lang)
    repo = checkpoint.ref.repo
    # Built as a pasted config (never named after a preset whose tensors it equals), named by its id.
    active_text, active = _active_of({}, inv)
    resolved = _request(checkpoint.config, inv, None, active_text, active, ({}, None),
                        label=repo if len(repo) <= LABEL_MAX else None, pasted=True)
    resolved = replace(resolved, pasted=False,
                       appendix=(hub_view.render(data, lang, markdown=True), hub_view.render(data, lang)))
    api._remember(resolved)
    want = tuple(w for w in request.get("want") or () if w in api.PARTS)
    out = api.render(resolved, lang, want)
    # The address: the id pinned to its commit (and the class, when another was asked for), nothing else.
    link = {KEY: checkpoint.pinned}
    if architecture:
        link["architecture"] = inv.architecture
    out["link"] = link
    out["hub"] = {"pinned": checkpoint.pinned, "id": repo, "config": config_text(checkpoint), "data": data}
    out["html"] = out["html"].replace("</h2>", "</h2>" + section(data, lang), 1)
    out.update(api._form_for({"forms": request.get("forms"), "params": resolved.query}, inv.model_type, lang))
    panel = request.get("costs")
    if isinstance(panel, dict):
        out["costs"] = api.costs_answer(resolved, panel, lang)
    return out


def section(data: Mapping[str, Any], lang: str = "en") -> Markup:
    """The file against the model, as the CLI prints it (:func:`calculator.views.hub.render`), in HTML."""
    w = hub_view._w
    model = data["model"]
    code = lambda s: h("code", s)  # noqa: E731
    requested = "" if data["requested"] == data["revision"] else \
        paren(w("requested", lang, revision=data["requested"]), lang, aside=True)
    head = [h("p", w("from", lang, repo=data["id"], sha=data["revision"]) + requested, class_="calc-hub-from")]
    if data.get("architecture") and data["architecture"] != model["architecture"]:
        # One click away: the same pinned id, built as the class the checkpoint was saved from.
        href = "?" + _query({KEY: f"{data['id']}@{data['revision']}", "architecture": data["architecture"]})
        head.append(h("p", _u("hub_checkpoint_class", lang, architecture=data["architecture"]), " ",
                      h("a", _u("hub_count_class", lang, architecture=data["architecture"]), href=href,
                        class_="calc-hub-class")))
    facts = []
    f = data["file"]
    if f:
        c = colon(lang)
        dtypes = join_list([f"{k}{c}{fmt_int(v, lang)}" for k, v in f["by_dtype"].items()], lang)
        files = join_list(f["files"], lang) if len(f["files"]) <= 3 else \
            f"{f['files'][0]} … {f['files'][-1]}" + paren(str(len(f["files"])), lang, aside=True)
        facts.append(h("li", w("file", lang, files=files, parameters=fmt_int(f["parameters"], lang),
                                tensors=fmt_int(f["tensors"], lang), dtypes=dtypes),
                       data_file_parameters=f["parameters"]))
    else:
        facts.append(h("li", w("no_file", lang)))
    facts.append(h("li", w("api", lang, total=fmt_int(data["api_total"], lang)), data_api_total=data["api_total"])
                 if data["api_total"] is not None else h("li", w("api_none", lang)))
    facts.append(h("li", w("model", lang, architecture=model["architecture"], total=fmt_int(model["total"], lang))))
    body: list[Any] = [h("h3", w("title", lang)), head, h("ul", facts)]
    for where, key in (("file", "only_file"), ("model", "only_model")):
        rows = [d for d in data["differences"] if d["where"] == where]
        if not rows:
            body.append(h("p", w("none_" + where, lang)))
            continue
        body.append(h("p", w(key, lang, n=fmt_int(len(rows), lang), count=fmt_int(sum(d["count"] for d in rows), lang))))
        head_row = [(w("name", lang), ""), (w("count", lang), "num"), (w("why", lang), "")]
        body.append(_table(head_row, [h("tr", _td(code(d["name"])), _td(fmt_int(d["count"], lang), "num"), _td(d["message"]))
                                      for d in rows], f"calc-hub-{where}", _u("hub_" + key, lang)))
    if data["mismatched"]:
        body.append(h("p", w("mismatched", lang, names=join_list(data["mismatched"], lang))))
    st = data.get("sentence_transformers")
    if st:
        dense = {d["path"]: d for d in st["dense"]}
        items = []
        for m in st["modules"]:
            if m["type"] == "Transformer":
                continue
            d = dense.get(m["path"])
            if d is None:
                items.append(h("li", w("no_params", lang, kind=m["type"])))
                continue
            line = w("dense", lang, path=d["path"], inp=d["in_features"], out=d["out_features"],
                     bias="" if d["bias"] else ", bias=False", count=fmt_int(d["parameters"], lang))
            if d["stored"] is not None:
                line += paren(w("dense_file", lang, count=fmt_int(d["stored"], lang)), lang, aside=True)
            items.append(h("li", line))
        body += [h("p", w("sentence", lang)), h("ul", items),
                 h("p", w("sentence_total", lang, total=fmt_int(st["total"], lang)), data_st_total=st["total"])]
    return h("section", join(body), class_="calc-hub", data_pinned=f"{data['id']}@{data['revision']}",
             data_model_total=model["total"])


def _query(params: Mapping[str, str]) -> str:
    return "&".join(f"{hub.quote(k, safe='')}={hub.quote(v, safe='@/')}" for k, v in params.items())


async def compute_json(request: str, lang: str = "en", progress: Any = None, transport: Any = None) -> str:
    """The worker's call for a request with ``model``: read the checkpoint, then answer as :func:`answer`.

    Never raises: an error is ``{"ok": False, "errors": [...]}``, each beside the field, the Hub's codes in
    the page's words; anything else the code ``internal``, as :func:`calculator.api.compute_json` does.
    """
    from .. import api
    from .fields import internal_error

    lang = norm_lang(lang)
    try:
        req = json.loads(request)
        if not isinstance(req, dict):
            raise CalcError("hub_bad_id", value="")
        checkpoint = await read(req.get(KEY), progress, transport)
        out = answer(checkpoint, req, lang)
    except CalcError as exc:
        out = api.failure([field_error(exc, lang)])
    except Exception:  # noqa: BLE001 - the page shows a code, never a traceback
        out = {"ok": False, "error": internal_error(lang), "errors": [internal_error(lang)],
               "detail": traceback.format_exc(limit=8)}
    return json.dumps(out, ensure_ascii=False)
