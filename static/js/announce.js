/**
 * Speaks the semantic `announce_key` of live UI actions as a short localized notice (de/en/it, from
 * the catalog the apps declare), in a polite live region so screen readers hear it too. Replayed
 * events stay silent: they describe the past.
 */
import { connectMutations } from "./mutations.js";

// announce_key → localized notice, declared by each app's AppConfig (`announce`) and rendered
// into the page by base.html, so the catalog is never kept by hand here.
const catalogElement = document.getElementById("announce-catalog");
const MESSAGES = catalogElement ? JSON.parse(catalogElement.textContent) : {};

function region() {
  let el = document.getElementById("live-announcer");
  if (!el) {
    el = document.createElement("div");
    el.id = "live-announcer";
    el.className = "announcer";
    el.setAttribute("role", "status");
    el.setAttribute("aria-live", "polite");
    document.body.appendChild(el);
  }
  return el;
}

function announce(text, record) {
  const note = document.createElement("p");
  note.textContent = record && (record.title || record.name) ? `${text}: ${record.title || record.name}` : text;
  region().appendChild(note);
  setTimeout(() => note.remove(), 5000);
}

connectMutations({
  onEvent(event, { replay } = {}) {
    if (replay) return;
    const seen = new Set();
    for (const action of event.ui_actions || []) {
      const message = MESSAGES[action.announce_key];
      if (!message || seen.has(action.announce_key)) continue;
      seen.add(action.announce_key);
      announce(message, action.record);
    }
  },
});
