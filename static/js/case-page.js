/**
 * The case page (Akte), live. Tasks, notes, calendar entries and documents carry their case in
 * every upsert record (`case_id`, or `case.id`); when one of this case's records, or a row the
 * page shows, changes, the linked sections are refetched (htmx, so the server re-checks
 * visibility) and the changed rows flash. A change to the case itself refreshes its facts.
 */
import { registerMutationHandler } from "./mutations.js";

const FLASH_MS = 1600;
const DEBOUNCE_MS = 80;
const root = document.getElementById("case-detail");
const caseId = root?.dataset.caseId;
const pending = new Set();
let timer = null;

function linked() {
  return document.getElementById("case-linked");
}

function isMine(record) {
  if (!record) return false;
  const id = record.case_id !== undefined ? record.case_id : record.case?.id;
  return id !== undefined && id !== null && String(id) === caseId;
}

function shown(list, recordId) {
  const region = linked();
  if (!region || recordId === undefined || recordId === null) return false;
  const selector = `[data-list="${CSS.escape(list)}"] [data-record-id="${CSS.escape(String(recordId))}"]`;
  return region.querySelector(selector) !== null;
}

function refreshLinked() {
  window.clearTimeout(timer);
  timer = window.setTimeout(() => {
    linked()?.dispatchEvent(new CustomEvent("clapilot:refresh", { detail: { topic: "cases.linked" } }));
  }, DEBOUNCE_MS);
}

function onLinkedChange(event) {
  let concerned = false;
  for (const action of event.ui_actions || []) {
    if (!action.list) continue;
    const mine = isMine(action.record);
    if (mine || shown(action.list, action.record_id)) {
      concerned = true;
      if (action.type === "upsert" && mine) pending.add(`${action.list}:${action.record_id}`);
    }
  }
  if (concerned) refreshLinked();
  return true; // rendered here (or not ours): no generic fallback
}

function flashRow(list, recordId) {
  const selector = `#case-linked [data-list="${CSS.escape(list)}"] [data-record-id="${CSS.escape(recordId)}"]`;
  for (const element of document.querySelectorAll(selector)) {
    element.classList.remove("flash-highlight");
    void element.offsetWidth;
    element.classList.add("flash-highlight");
    window.setTimeout(() => element.classList.remove("flash-highlight"), FLASH_MS);
  }
}

document.body.addEventListener("htmx:afterSettle", (e) => {
  if (e.target?.id !== "case-linked" && !e.target?.querySelector?.("#case-linked")) return;
  for (const key of pending) {
    const [list, id] = key.split(":");
    flashRow(list, id);
  }
  pending.clear();
});

let latest = Number(JSON.parse(document.getElementById("case-record")?.textContent || "{}").version || 0);

function onCaseChange(event) {
  for (const action of event.ui_actions || []) {
    if (action.type !== "upsert" || action.list !== "cases" || String(action.record_id) !== caseId) continue;
    const version = Number(action.record?.version || 0);
    if (version && version <= latest) continue;
    latest = version;
    document.getElementById("case-facts")?.dispatchEvent(new CustomEvent("clapilot:refresh"));
  }
  return true;
}

if (root) {
  // The topics of the linked sections, declared by the apps that contribute them (apps.clients.case_page).
  for (const topic of (root.dataset.linkedTopics || "").split(" ").filter(Boolean)) {
    registerMutationHandler(topic, onLinkedChange);
  }
  registerMutationHandler("cases.case", onCaseChange);
}
