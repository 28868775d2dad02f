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

  // The requirements table: filter by status and sort by a column, both with buttons a keyboard reaches.
  var STATUS_ORDER = { not_met: 0, partially_met: 1, met: 2 };
  function enhance(scope) {
    scope.querySelectorAll("[data-js-show]").forEach(function (el) { el.hidden = false; });
    scope.querySelectorAll(".filter").forEach(function (group) {
      var table = group.parentNode.querySelector(".reqs");
      group.addEventListener("click", function (event) {
        var button = event.target.closest("button[data-filter]");
        if (!button || !table) return;
        var wanted = button.getAttribute("data-filter");
        group.querySelectorAll("button").forEach(function (b) { b.setAttribute("aria-pressed", String(b === button)); });
        table.querySelectorAll("tbody tr").forEach(function (row) {
          row.hidden = wanted !== "" && row.getAttribute("data-status") !== wanted;
        });
        postHeight();
      });
    });
    scope.querySelectorAll(".reqs th[data-sort]").forEach(function (th) {
      var key = th.getAttribute("data-sort");
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      button.textContent = th.textContent;
      th.textContent = "";
      th.appendChild(button);
      th.setAttribute("aria-sort", key === "position" ? "ascending" : "none");
      button.addEventListener("click", function () {
        var table = th.closest("table");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var by = key === "status"
            ? STATUS_ORDER[a.getAttribute("data-status")] - STATUS_ORDER[b.getAttribute("data-status")] : 0;
          return by || a.getAttribute("data-position") - b.getAttribute("data-position");
        });
        rows.forEach(function (row) { body.appendChild(row); });
        table.querySelectorAll("th[data-sort]").forEach(function (other) {
          other.setAttribute("aria-sort", other === th ? "ascending" : "none");
        });
      });
    });
    // On wide screens folded sections show open (CSS does it without JS); mark them open too, so a screen
    // reader hears "expanded", and so browsers without ::details-content show them.
    // A long requirements table (fold--long) stays folded until the reader opens it.
    if (wide.matches) scope.querySelectorAll("details.fold:not(.fold--long)").forEach(function (d) { d.open = true; });
  }
  var wide = window.matchMedia("(min-width: 761px)");
  document.addEventListener("click", function (event) {   // there a heading is a heading: no collapsing
    var summary = event.target.closest && event.target.closest("summary.fold__summary");
    if (wide.matches && summary && !summary.parentNode.classList.contains("fold--long")) event.preventDefault();
  });
  enhance(document);
  document.addEventListener("toggle", postHeight, true);

  var form = document.querySelector("form[data-fragment-base]");
  var slot = document.getElementById("report-slot");
  if (!form || !slot || !window.fetch) return;

  var select = form.elements.persona;
  var status = document.getElementById("report-status");
  var base = form.getAttribute("data-fragment-base");
  // A signed page's form carries its signature (see "Signed embed URLs"): the fragments are asked with it.
  var signed = ["expires", "signature"].filter(function (name) { return form.elements[name]; })
    .map(function (name) { return name + "=" + encodeURIComponent(form.elements[name].value); }).join("&");
  var pending = null;
  form.querySelectorAll("[data-js-hide]").forEach(function (el) { el.hidden = true; });

  function show(persona) {
    if (pending) pending.abort();
    var controller = pending = new AbortController();
    slot.setAttribute("aria-busy", "true");
    fetch(base + encodeURIComponent(persona) + (signed ? "?" + signed : ""), {
      signal: controller.signal, credentials: "same-origin", headers: { Accept: "text/html" }
    }).then(function (response) {
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.text();
    }).then(function (html) {
      slot.innerHTML = html;
      enhance(slot);
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
