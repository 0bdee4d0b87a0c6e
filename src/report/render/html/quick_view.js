// quick_view.html's one script (allowed by its hash in the page's CSP; no
// other script can run). The page is complete without it: this only adds
// the case filters, sorting of the matrix and the summary table, and opening
// a case from a link. It never writes markup: text goes in as text nodes.
(function () {
  "use strict";
  var form = document.getElementById("filters");
  var table = document.getElementById("cases");
  if (!form || !table) return;
  var cases = Array.prototype.slice.call(table.querySelectorAll("tbody.case"));
  var heads = Array.prototype.slice.call(table.querySelectorAll("tbody.prompt-head"));
  var shown = document.getElementById("shown");
  var fields = ["prompt", "question", "round", "status", "text"];
  // Lower-cased text of each case, read once on the first text search.
  var texts = null;

  function value(name) {
    return form.elements[name].value.trim();
  }

  function matches(c, i, f) {
    var d = c.dataset;
    if (f.prompt && d.prompt !== f.prompt) return false;
    if (f.question && d.question.toLowerCase().indexOf(f.question.toLowerCase()) < 0) return false;
    if (f.round && d.round !== f.round) return false;
    if (f.status === "failed" ? d.status === "correct" : f.status && d.status !== f.status) return false;
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
    var seen = {};
    cases.forEach(function (c, i) {
      var ok = matches(c, i, f);
      c.hidden = !ok;
      if (ok) { count += 1; seen[c.dataset.prompt] = true; }
    });
    heads.forEach(function (h) { h.hidden = !seen[h.dataset.prompt]; });
    shown.textContent = count + " of " + cases.length + " cases shown";
    shown.dataset.count = String(count);
    // The filters live in the address, so a filtered view can be shared.
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

  // A link to a case (the matrix, the not-evaluated list) opens it, even
  // when the filters hid it.
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

  // Sorting: a header button sorts its table's body by that column
  // (data-sort of each cell, as a number where it is one); again reverses.
  function sortable(t) {
    var body = t.tBodies[0];
    Array.prototype.forEach.call(t.querySelectorAll("th button.sort"), function (b) {
      b.addEventListener("click", function () {
        var col = Number(b.dataset.column);
        var down = b.dataset.direction !== "desc";
        var rows = Array.prototype.slice.call(body.rows);
        var key = function (r) {
          var cell = r.cells[col];
          var s = cell.dataset.sort !== undefined ? cell.dataset.sort : cell.textContent;
          var n = Number(s);
          return s !== "" && !isNaN(n) ? n : s;
        };
        rows.sort(function (a, b2) {
          var x = key(a), y = key(b2);
          var order = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
          return down ? -order : order;
        });
        rows.forEach(function (r) { body.appendChild(r); });
        Array.prototype.forEach.call(t.querySelectorAll("th button.sort"), function (o) {
          o.removeAttribute("data-direction");
          o.parentNode.removeAttribute("aria-sort");
        });
        b.dataset.direction = down ? "desc" : "asc";
        b.parentNode.setAttribute("aria-sort", down ? "descending" : "ascending");
      });
    });
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
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), sortable);
  window.addEventListener("hashchange", open);
  apply();
  open();
})();
