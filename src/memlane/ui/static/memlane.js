// memlane ui: the little behaviour the pages have. Everything works without it except the filter and the edit form.
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var cited = document.getElementById("cited");
    if (cited) { cited.scrollIntoView({ block: "center" }); }
    var filter = document.getElementById("filter");
    if (filter) {
      filter.addEventListener("input", function () {
        var needle = filter.value.trim().toLowerCase();
        document.querySelectorAll("table.entities tbody tr").forEach(function (row) {
          row.hidden = needle !== "" && row.getAttribute("data-name").indexOf(needle) < 0;
        });
      });
    }
    var form = document.getElementById("edit-form");
    if (form) {
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        var out = form.querySelector("output");
        fetch("/api/edit", {
          method: "POST",
          headers: { "content-type": "application/json", "x-memlane-edit": form.dataset.key },
          body: JSON.stringify({ path: form.dataset.path, old: form.elements.old.value, new: form.elements["new"].value })
        }).then(function (r) { return r.json().then(function (body) { return [r.ok, body]; }); })
          .then(function (res) {
            if (res[0]) { window.location.reload(); } else { out.textContent = res[1].error; }
          });
      });
    }
  });
})();
