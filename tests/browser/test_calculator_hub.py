"""The page's model-id field (issue 33, item 4) in Chromium, against the local Hub stand-in.

``https://huggingface.co`` is routed to ``tests/hub/standin.py`` (the API, ``resolve`` with its redirect to
a "CDN" on another port that answers ``Range``), which serves checkpoints transformers saves in the test
(``tests/hub/conftest.py``). Every expected total comes from transformers (``AutoModel.from_pretrained``
on the same folder), the file's count from the safetensors library; nothing from the calculator.

On one page per language: a link with ``?model=`` (single file) answers and its address is rewritten to
``model=REPO@SHA``; the field reads a sharded repo; a missing and a gated repo get their coded errors
beside the field; with the Hub unreachable, ``hub_unreachable`` there, and the paste box still answers.
A context with the service worker checks that nothing the Hub answered is kept in its caches.
"""
from __future__ import annotations

import json
import re
from urllib.parse import parse_qsl, urlsplit

import pytest

from tests.harness import Traffic, new_context

from .support import BOOT_TIMEOUT_MS, wait_error, wait_ready, wait_total
from .test_calculator_offline import KEPT

pytestmark = pytest.mark.browser

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from tests.hub.conftest import TINY, make_repos  # noqa: E402  (needs torch and transformers)
from tests.hub.standin import Hub, safetensors_block  # noqa: E402

HUB = "https://huggingface.co"


@pytest.fixture(scope="module")
def repos(tmp_path_factory):
    return make_repos(tmp_path_factory.mktemp("hub-page"))


@pytest.fixture(scope="module")
def hub(repos):
    h = Hub(dict(repos)).start()
    yield h
    h.stop()


def transformers_total(folder) -> int:
    """What ``AutoModel.from_pretrained(id)`` builds, counted by torch."""
    model = transformers.AutoModel.from_pretrained(str(folder))
    return sum(p.numel() for p in model.parameters())


def to_standin(hub: Hub):
    """huggingface.co's requests answered by the stand-in; its redirect (to the CDN on 127.0.0.1) left to the browser."""
    def forward(route):
        url = hub.hub_url + route.request.url[len(HUB):]
        route.fulfill(response=route.fetch(url=url, max_redirects=0))

    return forward


def hub_context(browser, hub: Hub, **options):
    traffic = Traffic()
    ctx = new_context(browser, traffic, **options)
    ctx.set_default_timeout(BOOT_TIMEOUT_MS)
    ctx.route(f"{HUB}/**", to_standin(hub))
    return ctx, traffic


def read(page, model: str) -> None:
    page.fill("#calc-model", model)
    page.click("#calc-model-read")


def model_error(page, code: str) -> str:
    loc = wait_error(page, code)
    slot = page.locator("#calc-model-error")
    assert slot.get_attribute("data-error-code") == code and loc.first.is_visible()
    assert page.get_attribute("#calc-model", "aria-invalid") == "true"
    return slot.text_content()


def query(page) -> dict:
    return dict(parse_qsl(urlsplit(page.url).query))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_model_ids_read_from_the_hub(browser, site, hub, repos, lang):
    single, sharded = "tiny/bert-mlm", "tiny/bert-pretraining-sharded"
    expected = {m: transformers_total(repos[m].folder) for m in (single, sharded)}
    ctx, traffic = hub_context(browser, hub)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        # 1. A link with a model id: transformers' total, the address pinned to the commit, the config in the box.
        page.goto(site.url("calculator/", lang, f"model={single}"))
        wait_total(page, expected[single])
        # the field's script came on demand, once, versioned as the page's other scripts are
        scripts = [u for u in traffic.seen if "calculator-model.js" in u]
        assert len(scripts) == 1 and re.search(r"calculator-model\.js\?v=[0-9a-f]{12}$", scripts[0]), scripts
        sha = repos[single].sha
        assert re.fullmatch(r"[0-9a-f]{40}", sha)
        assert query(page) == {"model": f"{single}@{sha}"}, page.url
        assert page.input_value("#calc-model") == f"{single}@{sha}"
        config = json.loads((repos[single].folder / "config.json").read_text())
        assert json.loads(page.input_value("#calc-config")) == config
        assert page.input_value("#calc-label") == single  # named by its id
        section = page.locator("#calc-output .calc-hub")
        assert section.get_attribute("data-pinned") == f"{single}@{sha}"
        file_total = safetensors_block(repos[single].folder)["total"]
        assert int(page.get_attribute("#calc-output [data-file-parameters]", "data-file-parameters")) == file_total
        assert int(page.get_attribute("#calc-output [data-api-total]", "data-api-total")) == file_total
        # the progress line: four requests (the API, config.json, 8 bytes, the header), in the page's language
        progress = page.text_content("#calc-model-progress")
        assert f"{single}@{sha}" in progress and re.search(r"\b4\b", progress), progress
        assert ("已读取" in progress) == (lang == "zh")
        # the reads went to huggingface.co (routed) and its CDN, the ranges with Range only
        ranged = [h for role, path, h in hub.log if role == "cdn" and path.endswith(".safetensors")]
        assert ranged and all(h.get("range", "").startswith("bytes=") for h in ranged)
        assert not any("authorization" in h for _, _, h in hub.log)

        # 2. A sharded repo typed in the field.
        read(page, sharded)
        wait_total(page, expected[sharded])
        page.wait_for_function("(m) => location.search.includes(m)", arg=repos[sharded].sha)
        assert int(page.get_attribute("#calc-output [data-file-parameters]", "data-file-parameters")) == \
            safetensors_block(repos[sharded].folder)["total"]

        # 3. A repo that does not exist, and a gated one: their codes beside the field, in the page's language.
        read(page, "tiny/nope")
        message = model_error(page, "hub_not_found")
        assert "tiny/nope" in message and (("找不到" in message) == (lang == "zh")), message
        read(page, "tiny/bert-gated")
        message = model_error(page, "hub_gated")
        public = safetensors_block(repos["tiny/bert-gated"].folder)["total"]
        assert f"{public:,}" in message and "config.json" in message, message
        assert ("受限" in message) == (lang == "zh") and "HF_TOKEN" not in message

        # 4. The Hub unreachable: hub_unreachable beside the field, and the paste box still answers.
        ctx.unroute(f"{HUB}/**")
        ctx.route(f"{HUB}/**", lambda route: route.abort())
        read(page, "tiny/bert-old")
        message = model_error(page, "hub_unreachable")
        assert "huggingface.co" in message and "config.json" in message, message
        tiny = {"model_type": "bert", **TINY}
        model = transformers.BertModel(transformers.BertConfig(**TINY))
        page.click("#calc-config-box summary") if page.get_attribute("#calc-config-box", "open") is None else None
        page.fill("#calc-config", json.dumps(tiny))
        page.click("#calc-config-apply")
        wait_total(page, sum(p.numel() for p in model.parameters()))
        assert page.input_value("#calc-model") == "" and "model" not in query(page)
    finally:
        page.close()
        ctx.close()
    assert errors == [], errors
    assert traffic.blocked == [], traffic.blocked


def test_the_service_worker_keeps_nothing_the_hub_answered(browser, site, hub, repos):
    ctx, traffic = hub_context(browser, hub, service_workers="allow")
    page = ctx.new_page()
    try:
        page.goto(site.url("calculator/"))
        wait_ready(page)
        scopes = page.evaluate(KEPT)  # both registrations (the page's, the worker's) active: their install is done
        assert len(scopes) == 2, scopes
        # a page without a model id downloads none of the Hub's modules, nor the field's own script
        # (calculator-model.js, imported on demand), and the service worker keeps none of them
        assert not [u for u in traffic.seen if "hub.py" in u or "calculator-model.js" in u], traffic.seen
        since = len(hub.log)
        # a second load: the page and its worker under the service worker, then a model id read through it
        page.goto(site.url("calculator/", "en", "model=tiny/bert-mlm"))
        wait_total(page, transformers_total(repos["tiny/bert-mlm"].folder))
        assert page.evaluate("navigator.serviceWorker.controller !== null")
        assert any(role == "cdn" for role, _, _ in hub.log[since:]), "the model was read through the controlled worker"
        kept = page.evaluate("""async () => {
          const out = [];
          for (const name of await caches.keys()) {
            for (const req of await (await caches.open(name)).keys()) out.push(req.url);
          }
          return out;
        }""")
        assert kept, "the service worker kept the calculator's files"
        assert not [u for u in kept if "huggingface.co" in u or hub.cdn_url in u or hub.hub_url in u], kept
    finally:
        page.close()
        ctx.close()


def test_the_field_says_offline_when_its_script_cannot_download(browser, site, hub):
    """The field's script comes on demand (calculator-model.js): focusing the field asks for it, and when it
    cannot download (offline before a first model id) the field says so with its code, as for the Hub's modules."""
    from calculator.page.labels import UI_LABELS

    ctx, traffic = hub_context(browser, hub)
    asked: list[str] = []

    def offline(route):
        asked.append(route.request.url)
        route.abort()

    ctx.route("**/assets/js/calculator-model.js*", offline)
    page = ctx.new_page()
    try:
        page.goto(site.url("calculator/"))
        wait_ready(page)
        assert asked == []  # a page load without a model id does not ask for it
        page.focus("#calc-model")
        since = len(hub.log)
        read(page, "tiny/bert-mlm")
        assert model_error(page, "hub_unreachable") == UI_LABELS["model_offline"]["en"]
        assert asked, "focusing the field asked for its script"
        assert hub.log[since:] == []  # nothing reached the Hub
    finally:
        page.close()
        ctx.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_sentence_transformers_repo_says_what_sentence_transformer_adds(browser, site, hub, repos, lang):
    """Issue 33, item 5: a repo with modules.json. The answer is AutoModel's, and the section adds what
    SentenceTransformer(id) builds after it: the Dense layer's nn.Linear (its parameters counted by torch on the
    layer saved in the repo's 2_Dense folder), pooling and normalisation adding none."""
    from safetensors.torch import load_file

    model = "tiny/bert-st"
    folder = repos[model].folder
    base = transformers_total(folder)
    dense_config = json.loads((folder / "2_Dense" / "config.json").read_text())
    linear = torch.nn.Linear(dense_config["in_features"], dense_config["out_features"], bias=dense_config["bias"])
    linear.load_state_dict({k[len("linear."):]: v for k, v in load_file(str(folder / "2_Dense" / "model.safetensors")).items()})
    dense = sum(p.numel() for p in linear.parameters())
    ctx, traffic = hub_context(browser, hub)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(site.url("calculator/", lang, f"model={model}"))
        wait_total(page, base)
        st = page.locator("#calc-output [data-st-total]")
        assert int(st.get_attribute("data-st-total")) == base + dense
        section = page.text_content("#calc-output .calc-hub")
        assert "SentenceTransformer" in section and "nn.Linear(32, 16" in section, section
        assert f"{dense:,}" in section or str(dense) in section, section
    finally:
        page.close()
        ctx.close()
    assert errors == [], errors
