/**
 * Speaks the semantic `announce_key` of live UI actions as a short localized notice (de/en/it, from
 * the catalog the apps declare), in a polite live region so screen readers hear it too. Which
 * events get a notice (not the viewer's own, one per operation, grouped, muted) is toasts.js's.
 */
import { connectMutations } from "./mutations.js";
import { toastForEvent } from "./toasts.js";

// announce_key → localized notice, declared by each app's AppConfig (`announce`) and rendered
// into the page by base.html, so the catalog is never kept by hand here.
const catalogElement = document.getElementById("announce-catalog");
const MESSAGES = catalogElement ? JSON.parse(catalogElement.textContent) : {};

connectMutations({
  onEvent(event, { replay } = {}) {
    toastForEvent(event, MESSAGES, { replay });
  },
});
