/**
 * Live lists where people decide (the review queue, the memory page) refetch themselves on live
 * events: `[data-refresh-topic][hx-get]` elements with `hx-trigger="clapilot:refresh"`. While
 * someone is in the middle of a decision there (an edit box open, a note or corrected text typed,
 * items ticked for a bulk decision) the refetch waits, so nothing they did is thrown away, and
 * runs as soon as they are done.
 */
let deferred = null;

function targetOf(source) {
  const selector = source.getAttribute("hx-target");
  if (!selector || selector === "this") return source;
  return document.querySelector(selector);
}

function busy(root) {
  if (!root) return false;
  if (root.querySelector("details.review-edit[open]")) return true;
  if (document.querySelector('input[type="checkbox"][name="ids"]:checked')) return true;
  const active = document.activeElement;
  return Boolean(active && root.contains(active) && active.matches("input, textarea") && active.value);
}

document.addEventListener("htmx:confirm", (event) => {
  const source = event.detail && event.detail.elt;
  if (!source || !source.matches || !source.matches("[data-refresh-topic][hx-get]")) return;
  if (!busy(targetOf(source))) return;
  event.preventDefault();
  deferred = source;
});

function retry() {
  if (deferred === null || busy(targetOf(deferred))) return;
  const source = deferred;
  deferred = null;
  window.htmx.trigger(source, "clapilot:refresh");
}

for (const name of ["focusout", "change", "toggle"]) {
  document.addEventListener(name, () => window.setTimeout(retry, 0), true);
}
