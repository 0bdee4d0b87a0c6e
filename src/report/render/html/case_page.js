// A case page's one script (allowed by its hash in the page's CSP; no other
// script can run). The page is complete without it: this only adds the
// filters over the page's cases and opening a case from a link. It never
// writes markup: text goes in as text nodes.
(function () {
  "use strict";
  var form = document.getElementById("filters");
  var table = document.getElementById("cases");
  if (!form || !table) return;
  var cases = Array.prototype.slice.call(table.querySelectorAll("tbody.case"));
  // Lower-cased text of each case, read once on the first text search.
  var texts = null;

  function matches(c, i, f) {
    var d = c.dataset;
    if (f.question && d.question.toLowerCase().indexOf(f.question.toLowerCase()) < 0) return false;
    if (f.round && d.round !== f.round) return false;
    if (f.text) {
      if (!texts) texts = cases.map(function (x) { return x.textContent.toLowerCase(); });
      if (texts[i].indexOf(f.text.toLowerCase()) < 0) return false;
    }
    return true;
  }

  var clear = filterForm(form, ["question", "round", "text"], document.getElementById("shown"), function (f) {
    var count = 0;
    cases.forEach(function (c, i) {
      var ok = matches(c, i, f);
      c.hidden = !ok;
      if (ok) count += 1;
    });
    return { count: count, total: cases.length };
  });

  // A link to a case (the quick view's matrix, another page) opens it,
  // even when the filters hid it.
  function open() {
    var id = decodeURIComponent(location.hash.slice(1));
    if (id.indexOf("case-") !== 0) return;
    var c = document.getElementById(id);
    if (!c) return;
    if (c.hidden) clear();
    var details = c.querySelector("details.case-detail");
    if (details) details.open = true;
    c.scrollIntoView();
  }

  window.addEventListener("hashchange", open);
  open();
})();
