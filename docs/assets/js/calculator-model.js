// The calculator page's model-id field (issue 33, item 4): a module of its own, imported by calculator.js
// the first time a model id is wanted (the field focused or sent, a link's model=, a Hub address pasted in
// the config box), so a page load without a model id downloads none of it.
//
// The worker reads the id from the Hub (calculator/page/hub.py) and answers as for a pasted config, named
// by its id; this module says the progress, puts the config that came back in the paste box and the id
// pinned to its commit in the field, and reads the class links of the answer's "file against model" section.
// Everything from the reader or the Hub is put on the page as text (textContent / .value); the words come
// from the page's schema (calculator.api.UI_LABELS), passed in as L.

export function modelId({ L, lang, fill, request, output, configText, input, progress }) {
  let numberFormat = null; // made on the first model id, not on every load
  let totals = null; // {requests, bytes} of the read in flight, for the line said when it is done

  function say(template, model, requests, bytes) {
    numberFormat ||= new Intl.NumberFormat(lang === "zh" ? "zh-CN" : "en-US");
    progress.textContent = fill(template, {
      model: String(model || "").slice(0, 200), requests: numberFormat.format(requests || 0), bytes: numberFormat.format(bytes || 0),
    });
  }

  function read(text, origin, architecture) {
    const model = String(text || "").trim();
    input.value = model;
    totals = { requests: 0, bytes: 0 };
    say(L.model_progress, model, 0, 0);
    const req = { model };
    if (typeof architecture === "string" && architecture) req.architecture = architecture;
    request(req, origin);
  }

  // The section's "Count <class>" link: the same pinned id, another class, without leaving the page.
  output.addEventListener("click", (event) => {
    const a = event.target.closest && event.target.closest("a.calc-hub-class");
    if (!a) return;
    const q = new URL(a.href, location.href).searchParams;
    if (!q.get("model")) return;
    event.preventDefault();
    read(q.get("model"), "model", q.get("architecture"));
  });

  return {
    read,
    // Requests made and bytes read so far, after each answer from the Hub.
    progress(msg, req) {
      totals = { requests: msg.requests, bytes: msg.bytes };
      say(L.model_progress, req.model, msg.requests, msg.bytes);
    },
    // The answer: the config that came back goes in the paste box (editable, applied like a pasted one), the
    // field holds the id pinned to its commit (the address too: calculator.js wrote result.link).
    done(hub) {
      configText.value = hub.config;
      input.value = hub.pinned;
      // What the read cost (none when the worker had read this commit already).
      say(L.model_done, hub.pinned, totals ? totals.requests : 0, totals ? totals.bytes : 0);
    },
    // A model id's errors go beside the field; the Hub's modules not downloaded (offline before a first
    // model id): worker.js gives the code only, worded here.
    failed(errors) {
      progress.textContent = "";
      for (const e of errors) if (e && e.code === "hub_unreachable" && !e.message) e.message = L.model_offline;
    },
  };
}
