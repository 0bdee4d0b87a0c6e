// The filter form of the quick view and of the case pages, written once:
// each page's script starts with this file (one inline script per page,
// allowed by its hash). `fields` name the form's inputs; `filter(f)` gets
// their trimmed values, hides what does not match and returns
// {count, total}. The values are kept in the address, so a filtered page
// can be shared. Returns the function that clears the filters.
var filterForm = function (form, fields, shown, filter) {
  "use strict";
  // The count in the run's language: the page gives the words.
  function said(n, m) {
    return (shown.dataset.words || "{n} of {m} cases shown")
      .replace("{n}", String(n)).replace("{m}", String(m));
  }

  function apply() {
    var f = {};
    fields.forEach(function (n) { f[n] = form.elements[n].value.trim(); });
    var r = filter(f);
    shown.textContent = said(r.count, r.total);
    shown.dataset.count = String(r.count);
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

  var params = new URLSearchParams(location.search);
  fields.forEach(function (n) {
    if (params.has(n)) form.elements[n].value = params.get(n);
  });
  form.hidden = false;
  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  document.getElementById("clear-filters").addEventListener("click", clear);
  apply();
  return clear;
};
