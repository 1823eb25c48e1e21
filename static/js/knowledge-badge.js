/**
 * The floating "indexing runs" badge (templates/knowledge/_badge.html).
 *
 * Asks the small JSON status endpoint on load; while jobs are active it asks again every few
 * seconds, and at once when a live `knowledge.jobs` mutation event arrives. Hidden when idle.
 */
import { registerMutationHandler } from "./mutations.js";

const POLL_MS = 3000;
const badge = document.getElementById("knowledge-badge");

function label(count) {
  const template = count === 1 ? badge.dataset.labelOne : badge.dataset.labelMany;
  return template.replace("%(n)s", String(count));
}

let timer = null;

async function refresh() {
  clearTimeout(timer);
  timer = null;
  let status;
  try {
    const response = await fetch(badge.dataset.statusUrl, {
      credentials: "same-origin",
      headers: { Accept: "application/json" },
    });
    if (!response.ok) return;
    status = await response.json();
  } catch {
    timer = setTimeout(refresh, POLL_MS * 3);
    return;
  }
  const active = Number(status.active || 0);
  if (active > 0) {
    const done = status.jobs.reduce((sum, job) => sum + (job.done || 0), 0);
    const total = status.jobs.reduce((sum, job) => sum + (job.total || 0), 0);
    const percent = total ? Math.round((100 * done) / total) : 0;
    badge.querySelector(".knowledge-badge-text").textContent = `${label(active)} · ${percent} %`;
    badge.hidden = false;
    timer = setTimeout(refresh, POLL_MS);
  } else {
    badge.hidden = true;
  }
}

if (badge) {
  registerMutationHandler("knowledge.jobs", () => {
    refresh();
    return false; // the page's own fragments still refresh through the generic fallback
  });
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) refresh();
  });
  refresh();
}
