/* Embedded report pages: in-place persona switching and iframe height for the parent page.
   The only HTML ever inserted is the server-rendered, server-escaped report fragment. */
(function () {
  "use strict";

  var root = document.documentElement;
  var lastHeight = 0;

  function postHeight() {
    if (window.parent === window) return;
    var height = Math.ceil(root.getBoundingClientRect().height);
    if (height <= 0 || height === lastHeight) return;
    lastHeight = height;
    window.parent.postMessage({ type: "crs:resize", height: height }, "*");
  }

  window.addEventListener("load", postHeight);
  window.addEventListener("resize", postHeight);
  if ("ResizeObserver" in window) new ResizeObserver(postHeight).observe(root);
  postHeight();

  var form = document.querySelector("form[data-fragment-base]");
  var slot = document.getElementById("report-slot");
  if (!form || !slot || !window.fetch) return;

  var select = form.elements.persona;
  var status = document.getElementById("report-status");
  var base = form.getAttribute("data-fragment-base");
  var pending = null;
  form.querySelectorAll("[data-js-hide]").forEach(function (el) { el.hidden = true; });

  function show(persona) {
    if (pending) pending.abort();
    var controller = pending = new AbortController();
    slot.setAttribute("aria-busy", "true");
    fetch(base + encodeURIComponent(persona), {
      signal: controller.signal, credentials: "same-origin", headers: { Accept: "text/html" }
    }).then(function (response) {
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.text();
    }).then(function (html) {
      slot.innerHTML = html;
      var url = new URL(window.location.href);
      url.searchParams.set("persona", persona);
      history.replaceState(null, "", url.pathname + url.search + url.hash);
      var label = select.options[select.selectedIndex];
      if (status && label) status.textContent = "Showing the report for " + label.text + ".";
      postHeight();
    }).catch(function (error) {
      if (error.name === "AbortError") return;
      form.submit();  // the server renders the same report on a plain GET
    }).finally(function () {
      if (pending === controller) {
        pending = null;
        slot.removeAttribute("aria-busy");
      }
    });
  }

  select.addEventListener("change", function () { show(select.value); });
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    show(select.value);
  });
})();
