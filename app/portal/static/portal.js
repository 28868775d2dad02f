/* Partner portal: copy buttons for the shown-once key and secret. Without JavaScript the buttons stay
   hidden and the values can still be selected (a click selects the whole value). */
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
