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
  var shown = document.getElementById("shown");
  // The count in the run's language: the page gives the words.
  function said(n, m) {
    return (shown.dataset.words || "{n} of {m} cases shown")
      .replace("{n}", String(n)).replace("{m}", String(m));
  }
  var fields = ["question", "round", "text"];
  // Lower-cased text of each case, read once on the first text search.
  var texts = null;

  function value(name) {
    return form.elements[name].value.trim();
  }

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

  function apply() {
    var f = {};
    fields.forEach(function (n) { f[n] = value(n); });
    var count = 0;
    cases.forEach(function (c, i) {
      var ok = matches(c, i, f);
      c.hidden = !ok;
      if (ok) count += 1;
    });
    shown.textContent = said(count, cases.length);
    shown.dataset.count = String(count);
    // The filters live in the address, so a filtered page can be shared.
    var query = new URLSearchParams();
    fields.forEach(function (n) { if (f[n]) query.set(n, f[n]); });
    var q = query.toString();
    try {
      history.replaceState(null, "", (q ? "?" + q : location.pathname) + location.hash);
    } catch (e) { /* some file:// setups refuse; the filter still works */ }
  }

  function clear() {
    fields.forEach(function (n) { form.elements[n].value = ""; });
    apply();
  }

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

  var params = new URLSearchParams(location.search);
  fields.forEach(function (n) {
    if (params.has(n)) form.elements[n].value = params.get(n);
  });
  form.hidden = false;
  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  document.getElementById("clear-filters").addEventListener("click", clear);
  window.addEventListener("hashchange", open);
  apply();
  open();
})();
