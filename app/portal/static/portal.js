/* Partner portal: copy buttons for the shown-once key and secret, a colour picker beside the accent
   colour's hex field, and a pending delivery's page kept up to date. Without JavaScript the buttons and the
   picker stay hidden: the values can still be selected (a click selects the whole value) and the colour typed,
   and a reload shows a delivery's new attempts. */
(function () {
  "use strict";

  var status = document.getElementById("copy-status");

  // A form that came back with errors: start where the first one is (its message is tied to the field).
  var invalid = document.querySelector('[aria-invalid="true"]');
  if (invalid) invalid.focus();

  function selectAll(element) {
    var range = document.createRange();
    range.selectNodeContents(element);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    return Promise.reject(new Error("clipboard unavailable"));
  }

  function announce(message) {
    if (status) status.textContent = message;
  }

  // The picker and the hex field stay in step; the hex field is what the form sends (empty: no colour).
  var HEX = /^\s*#([0-9a-f]{3}|[0-9a-f]{6})\s*$/i;
  document.querySelectorAll("input[data-color-for]").forEach(function (picker) {
    var field = document.getElementById(picker.getAttribute("data-color-for"));
    if (!field) return;
    // An empty field means the default accent: show that rather than the picker's own black.
    var standard = getComputedStyle(document.documentElement).getPropertyValue("--accent");
    function fromField() {
      var match = HEX.exec(field.value) || (field.value.trim() ? null : HEX.exec(standard));
      if (!match) return;
      var digits = match[1].length === 3 ? match[1].replace(/./g, "$&$&") : match[1];
      picker.value = "#" + digits.toLowerCase();
    }
    fromField();
    picker.hidden = false;
    picker.addEventListener("input", function () { field.value = picker.value; });
    field.addEventListener("input", fromField);
  });

  // A pending delivery's own page (a redelivery just queued): its status, next attempt and attempts follow the
  // sender without a reload, every two seconds for at most two minutes; the new status is announced once.
  var watched = document.querySelector("article[data-watch]");
  if (watched && window.fetch && window.DOMParser) {
    var polls = 0;
    var poll = function () {
      polls += 1;
      fetch(window.location.href, {credentials: "same-origin", headers: {Accept: "text/html"}})
        .then(function (response) { return response.ok ? response.text() : Promise.reject(response.status); })
        .then(function (html) {
          var fresh = new DOMParser().parseFromString(html, "text/html").getElementById(watched.id);
          if (!fresh) return;
          ["status", "next", "attempts"].forEach(function (part) {
            var old = watched.querySelector('[data-part="' + part + '"]');
            var now = fresh.querySelector('[data-part="' + part + '"]');
            if (old && now) old.replaceWith(document.importNode(now, true));
          });
          if (fresh.hasAttribute("data-watch")) {
            if (polls < 60) setTimeout(poll, 2000);
            return;
          }
          watched.removeAttribute("data-watch");
          var said = watched.querySelector('[data-part="announce"]');
          var state = watched.querySelector('[data-part="status"]');
          if (said && state) said.textContent = "Delivery status: " + state.textContent.trim() + ".";
        })
        .catch(function () { if (polls < 60) setTimeout(poll, 5000); });
    };
    setTimeout(poll, 2000);
  }

  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    var target = document.getElementById(button.getAttribute("data-copy"));
    if (!target) return;
    var label = button.firstChild;  // the visible word; the visually hidden rest names what is copied
    var timer = null;
    button.hidden = false;
    button.addEventListener("click", function () {
      var what = button.textContent.replace(/^Copy\s*/, "");
      copyText(target.textContent.trim()).then(function () {
        label.textContent = "Copied";
        button.setAttribute("data-copied", "");
        announce("Copied the " + what + " to the clipboard.");
        clearTimeout(timer);
        timer = setTimeout(function () {
          label.textContent = "Copy";
          button.removeAttribute("data-copied");
        }, 2500);
      }, function () {
        selectAll(target);
        announce("Selected the " + what + ": press Ctrl+C or ⌘C to copy it.");
      });
    });
  });
})();
