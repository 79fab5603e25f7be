/* The header's language switcher keeps the reader's place.
 *
 * A heading has the same id in both languages (## 多头自注意力 {#self-attention}),
 * so /embeddings/#position-embeddings and /zh/embeddings/#position-embeddings
 * point at the same section. The switcher's links (a[hreflang] in the header,
 * sitegen/i18n_links.py) are the other language's page, relative to this one,
 * without the address's #hash or ?query. This script adds the current ones to
 * them: once on load, on every hash change, and at the moment a link is used
 * (the calculator page rewrites its address, and its language links, as the
 * form changes; at click time this script adds the #hash back to what that
 * page's calculator.js set).
 *
 * A plain click stops here (capture phase): the link's href is the whole
 * answer. Material's bundle can rebuild a language link's target from
 * sitemap.xml, which drops the query; it only does so on pages with
 * <link rel="alternate"> in <head>, which overrides/main.html leaves out,
 * but the switcher must not depend on that.
 */
(function () {
  "use strict";
  var SWITCHER = ".md-select a[hreflang]";

  function carry(link) {
    var href = link.getAttribute("href");
    if (href === null) return;
    var target = href.split("#")[0].split("?")[0] + location.search + location.hash;
    if (target !== href) link.setAttribute("href", target);
  }

  function carryAll() {
    document.querySelectorAll(SWITCHER).forEach(carry);
  }

  function onUse(event) {
    var link = event.target instanceof Element ? event.target.closest(SWITCHER) : null;
    if (link === null) return;
    carry(link);
    if (event.type === "click") event.stopPropagation();
  }

  // Clicks, middle clicks, "copy link address", keyboard focus, and hover
  // (so the status bar shows where the link goes).
  ["click", "auxclick", "contextmenu", "focusin", "pointerover"].forEach(function (type) {
    document.addEventListener(type, onUse, true);
  });
  window.addEventListener("hashchange", carryAll);
  carryAll();
})();
