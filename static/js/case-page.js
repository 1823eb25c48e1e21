/**
 * The case page (Akte), live. Tasks, notes, calendar entries and documents carry their case in
 * every upsert record (`case_id`, or `case.id`); when one of this case's records, or a row the
 * page shows, changes, the linked sections are refetched (htmx, so the server re-checks
 * visibility) and the changed rows flash. A change to the case itself refreshes its facts.
 */
import { registerMutationHandler } from "./mutations.js";
import { declaredTopics, watchLinkedSections } from "./linked-sections.js";

const root = document.getElementById("case-detail");
const caseId = root?.dataset.caseId;

function isMine(record) {
  const id = record.case_id !== undefined ? record.case_id : record.case?.id;
  return id !== undefined && id !== null && String(id) === caseId;
}

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
  watchLinkedSections({ regionId: "case-linked", topic: "cases.linked", belongs: isMine, topics: declaredTopics(root) });
  registerMutationHandler("cases.case", onCaseChange);
}
