// Small page behaviours declared in the markup instead of inline event handlers (the strict
// Content-Security-Policy blocks `onclick=`, `onsubmit=`, `hx-on` …). Delegated from the document,
// so fragments htmx swaps in behave the same.
//   <select data-autosubmit>             submits its form when changed
//   <form data-confirm="Really?">        asks before submitting
//   <input data-select-on-click>         selects its text when clicked
//   <form data-reset-on-success>         is emptied after a successful htmx request
document.addEventListener("change", (event) => {
  const field = event.target.closest?.("[data-autosubmit]");
  if (field && field.form) field.form.submit();
});

document.addEventListener("submit", (event) => {
  const form = event.target.closest?.("form[data-confirm]");
  if (form && !window.confirm(form.dataset.confirm)) {
    event.preventDefault();
    event.stopImmediatePropagation();
  }
}, true);

document.addEventListener("click", (event) => {
  const field = event.target.closest?.("[data-select-on-click]");
  if (field && typeof field.select === "function") field.select();
});

document.addEventListener("htmx:afterRequest", (event) => {
  const form = event.target.closest?.("form[data-reset-on-success]");
  if (form && event.detail.successful) form.reset();
});

// The collapsible main navigation (base.html): <button data-nav-toggle aria-controls="site-nav">
// inside <header data-nav>. The button says whether the panel is open (aria-expanded); Escape
// and a click outside close it, and focus goes back to the button when it was inside.
function setNavigation(header, open) {
  const toggle = header.querySelector("[data-nav-toggle]");
  if (!toggle) return;
  header.classList.toggle("nav-open", open);
  toggle.setAttribute("aria-expanded", String(open));
}

document.addEventListener("click", (event) => {
  const toggle = event.target.closest?.("[data-nav-toggle]");
  if (toggle) {
    const header = toggle.closest("[data-nav]");
    setNavigation(header, toggle.getAttribute("aria-expanded") !== "true");
    return;
  }
  for (const header of document.querySelectorAll("[data-nav].nav-open")) {
    if (!header.contains(event.target)) setNavigation(header, false);
  }
});

document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  for (const header of document.querySelectorAll("[data-nav].nav-open")) {
    const hadFocus = header.querySelector("#site-nav, .site-nav")?.contains(document.activeElement);
    setNavigation(header, false);
    if (hadFocus) header.querySelector("[data-nav-toggle]")?.focus();
  }
});

// Tables become one card per row on phones (app.css, "Narrow screens"): each cell gets its
// column's heading as data-label, for every table on the page and for rows added later
// (htmx swaps, live updates). Cells that set their own data-label keep it. Explicit table
// roles keep the table readable by screen readers once CSS displays its parts as blocks.
const STACKED_TABLES = "main table:not(.cal-month)";

function setRoles(table) {
  table.setAttribute("role", "table");
  for (const section of [table.tHead, ...table.tBodies, table.tFoot]) {
    if (!section) continue;
    section.setAttribute("role", "rowgroup");
    for (const row of section.rows) {
      row.setAttribute("role", "row");
      for (const cell of row.cells) {
        if (cell.hasAttribute("role")) continue;
        const header = cell.tagName === "TH";
        cell.setAttribute("role", !header ? "cell" : section === table.tHead ? "columnheader" : "rowheader");
      }
    }
  }
}

function labelTable(table) {
  const headings = table.tHead?.rows[0]?.cells;
  if (!headings || !headings.length) return;
  setRoles(table);
  const labels = Array.from(headings, (cell) => cell.textContent.trim());
  for (const body of table.tBodies) {
    for (const row of body.rows) {
      let column = 0;
      for (const cell of row.cells) {
        const label = labels[column];
        if (label && !cell.hasAttribute("data-label")) cell.setAttribute("data-label", label);
        column += cell.colSpan || 1;
      }
    }
  }
}

function labelTables(root) {
  const tables = root.matches?.(STACKED_TABLES) ? [root] : [];
  const closest = root.closest?.(STACKED_TABLES);
  if (closest) tables.push(closest);
  tables.push(...(root.querySelectorAll?.(STACKED_TABLES) || []));
  for (const table of new Set(tables)) labelTable(table);
}

function watchTables() {
  labelTables(document);
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.nodeType === Node.ELEMENT_NODE) labelTables(node);
      }
    }
  }).observe(document.body, { childList: true, subtree: true });
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", watchTables);
else watchTables();
