/**
 * Dashboard widget cards refetch on `mini-apps` events (htmx, `hx-trigger="clapilot:refresh"`).
 * The swap replaces the cards, so the highlight of the changed widget is applied again afterwards:
 * the person sees which card the copilot just changed.
 */
const container = document.getElementById("widget-cards");
const FLASH_MS = 1600;
const pending = new Set();

if (container) {
  container.addEventListener("clapilot:refresh", (domEvent) => {
    const event = domEvent.detail && domEvent.detail.event;
    for (const action of (event && event.ui_actions) || []) {
      if (action.type === "highlight" && action.record_id) pending.add(String(action.record_id));
    }
  });
  document.body.addEventListener("htmx:afterSwap", (domEvent) => {
    if (domEvent.detail.target !== container) return;
    for (const id of pending) {
      const card = container.querySelector(`[data-record-id="${CSS.escape(id)}"]`);
      if (!card) continue;
      card.classList.add("flash-highlight");
      window.setTimeout(() => card.classList.remove("flash-highlight"), FLASH_MS);
    }
    pending.clear();
  });
}
