/**
 * The live "linked records" region of a hub page (the client page, the case page). Tasks, notes,
 * calendar entries and documents carry their hub in every upsert record; when one of the hub's
 * records, or a row the region shows, changes, the region is refetched (htmx, so the server
 * re-checks visibility) and the changed rows flash once the new rows have settled.
 *
 * watchLinkedSections({ regionId, topic, belongs, topics }):
 *   regionId: the id of the htmx region that refetches on `clapilot:refresh`;
 *   topic:    the refresh topic sent with it;
 *   belongs:  record → true when the record is linked to this hub;
 *   topics:   the mutation topics of the sections (declared by the apps that contribute them).
 */
import { registerMutationHandler } from "./mutations.js";

const FLASH_MS = 1600;
const DEBOUNCE_MS = 80;

export function watchLinkedSections({ regionId, topic, belongs, topics }) {
  const pending = new Set();
  let timer = null;
  const region = () => document.getElementById(regionId);

  function shown(list, recordId) {
    if (!region() || recordId === undefined || recordId === null) return false;
    const selector = `[data-list="${CSS.escape(list)}"] [data-record-id="${CSS.escape(String(recordId))}"]`;
    return region().querySelector(selector) !== null;
  }

  function refresh() {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => {
      region()?.dispatchEvent(new CustomEvent("clapilot:refresh", { detail: { topic } }));
    }, DEBOUNCE_MS);
  }

  function onChange(event) {
    let concerned = false;
    for (const action of event.ui_actions || []) {
      if (!action.list) continue;
      const mine = Boolean(action.record) && belongs(action.record);
      if (mine || shown(action.list, action.record_id)) {
        concerned = true;
        if (action.type === "upsert" && mine) pending.add(`${action.list}:${action.record_id}`);
      }
    }
    if (concerned) refresh();
    return true; // rendered here (or not ours): no generic fallback
  }

  function flashRow(list, recordId) {
    const selector = `#${CSS.escape(regionId)} [data-list="${CSS.escape(list)}"] [data-record-id="${CSS.escape(recordId)}"]`;
    for (const element of document.querySelectorAll(selector)) {
      element.classList.remove("flash-highlight");
      void element.offsetWidth;
      element.classList.add("flash-highlight");
      window.setTimeout(() => element.classList.remove("flash-highlight"), FLASH_MS);
    }
  }

  document.body.addEventListener("htmx:afterSettle", (e) => {
    if (e.target?.id !== regionId && !e.target?.querySelector?.(`#${CSS.escape(regionId)}`)) return;
    for (const key of pending) {
      const [list, id] = key.split(":");
      flashRow(list, id);
    }
    pending.clear();
  });

  for (const name of topics) registerMutationHandler(name, onChange);
}

/** The topics a hub page's root element declares in `data-linked-topics`. */
export function declaredTopics(root) {
  return (root?.dataset.linkedTopics || "").split(" ").filter(Boolean);
}
