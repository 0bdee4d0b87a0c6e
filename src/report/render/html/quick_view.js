// The one script of quick_view.html and of the matrix pages (allowed by its
// hash in the page's CSP; no other script can run). The pages are complete
// without it: this only adds sorting of the tables and, in the quick view,
// the filters over the case pages' links. It never writes markup: text goes
// in as text nodes.
(function () {
  "use strict";

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
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), sortable);

  // The filters: a prompt and a verdict (or "not correct") keep the rows of
  // the case pages' table that hold those cases, so their links lead to
  // exactly the matching cases.
  var form = document.getElementById("filters");
  var table = document.getElementById("case-pages");
  if (!form || !table) return;
  var rows = Array.prototype.slice.call(table.querySelectorAll("tbody.verdicts tr"));
  var heads = Array.prototype.slice.call(table.querySelectorAll("tbody.prompt-head"));
  var total = rows.reduce(function (n, r) { return n + Number(r.dataset.count); }, 0);
  filterForm(form, ["prompt", "status"], document.getElementById("shown"), function (f) {
    var count = 0;
    var seen = {};
    rows.forEach(function (r) {
      var prompt = r.parentNode.dataset.prompt;
      var status = r.dataset.status;
      var ok = !(f.prompt && prompt !== f.prompt) &&
        !(f.status === "failed" ? status === "correct" : f.status && status !== f.status);
      r.hidden = !ok;
      if (ok) { count += Number(r.dataset.count); seen[prompt] = true; }
    });
    heads.forEach(function (h) { h.hidden = !seen[h.dataset.prompt]; });
    return { count: count, total: total };
  });
})();
