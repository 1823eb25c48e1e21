/**
 * "Heute" (templates/dashboard/index.html) stays current: a live event of the Kalender, the
 * Aufgaben, the documents or the notifications refetches the cards (#today) from the server,
 * which counts everything again from the database. Events in a burst share one fetch.
 */
import { registerMutationHandler } from "./mutations.js";

const container = document.getElementById("today");
const TOPICS = ["calendar", "aufgaben", "documents", "notifications", "clients", "mandanten"];
const SETTLE_MS = 150;

let timer = null;
let running = false;
let again = false;

async function refresh() {
  if (running) {
    again = true;
    return;
  }
  running = true;
  try {
    const response = await fetch(container.dataset.cardsUrl, { credentials: "same-origin", headers: { "HX-Request": "true" } });
    if (response.ok) container.innerHTML = await response.text();
  } catch {
    /* offline: the next event or a reload brings the cards up to date */
  } finally {
    running = false;
    if (again) {
      again = false;
      schedule();
    }
  }
}

function schedule() {
  window.clearTimeout(timer);
  timer = window.setTimeout(refresh, SETTLE_MS);
}

if (container) {
  for (const topic of TOPICS) {
    registerMutationHandler(topic, () => {
      schedule();
      return false; // the bell and other listeners still get the event
    });
  }
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) schedule();
  });
}
