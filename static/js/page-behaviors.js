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
