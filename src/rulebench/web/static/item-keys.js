// Keyboard shortcuts of the run and item pages, as each page's "Keys" note lists them:
// ArrowLeft/ArrowRight (or k/j) follow the item page's previous/next links, "/" focuses
// the search box. A static file, as the Content-Security-Policy allows no inline script.
(function () {
  "use strict";

  var ITEM_LINKS = { ArrowRight: "next", j: "next", ArrowLeft: "prev", k: "prev" };

  // Keys typed into a field are the field's: no shortcut fires while typing.
  function isTyping(target) {
    if (!(target instanceof Element)) {
      return false;
    }
    return target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName);
  }

  document.addEventListener("keydown", function (event) {
    // Alt+Left is the browser's back, Ctrl/Cmd keys are its own; Shift may be needed for "/".
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) {
      return;
    }
    if (isTyping(event.target)) {
      return;
    }
    if (event.key === "/") {
      var search = document.querySelector("[data-key-search]");
      if (search) {
        event.preventDefault(); // else the "/" would be typed into it
        search.focus();
      }
      return;
    }
    var rel = event.shiftKey ? undefined : ITEM_LINKS[event.key];
    var link = rel && document.querySelector("[data-item-nav] a[rel=" + rel + "]");
    if (link) {
      event.preventDefault();
      window.location.assign(link.href);
    }
  });
})();
