/**
 * The client page, live. Tasks, calendar entries, cases and documents carry their client(s) in
 * every upsert record (`client_id`, `client.id`, `clients[].id`); when one of this client's records, or a record the page
 * shows, changes, the linked sections are refetched (htmx, so the server re-checks visibility)
 * and the changed rows flash. A change to the client itself refreshes its facts and rebases the
 * editor: untouched fields take the new value, edited ones stay, and the hidden baseline and
 * version follow, so the next save sends only the user's own edits.
 */
import { registerMutationHandler } from "./mutations.js";
import { declaredTopics, watchLinkedSections } from "./linked-sections.js";

const root = document.getElementById("client-detail");
const clientId = root?.dataset.clientId;

function isMine(record) {
  if (Array.isArray(record.clients)) return record.clients.some((c) => String(c?.id) === clientId); // documents
  const id = record.client_id !== undefined ? record.client_id : record.client?.id;
  return id !== undefined && id !== null && String(id) === clientId;
}

// --- the client itself ------------------------------------------------------------------------
const form = document.getElementById("client-form");
const FIELD_OF = {
  name: (r) => r.name,
  client_number: (r) => r.client_number,
  kind: (r) => r.kind,
  status: (r) => r.status,
  tax_number: (r) => r.tax_number,
  email: (r) => r.email,
  phone: (r) => r.phone,
  street: (r) => r.street,
  postal_code: (r) => r.postal_code,
  city: (r) => r.city,
  country: (r) => r.country,
  responsible: (r) => (r.responsible === undefined ? undefined : String(r.responsible?.id ?? "")),
  notes: (r) => r.notes,
};
let latest = Number(JSON.parse(document.getElementById("client-record")?.textContent || "{}").version || 0);

function rebase(record) {
  if (!form) return;
  for (const [name, pick] of Object.entries(FIELD_OF)) {
    const input = form.elements[name];
    const base = form.elements[`base_${name}`];
    const value = pick(record);
    if (!input || !base || value === undefined || value === null || value === base.value) continue;
    const touched = input.value.replace(/\r\n/g, "\n") !== base.value.replace(/\r\n/g, "\n");
    if (!touched) input.value = value;
    base.value = value;
  }
  if (form.elements.version) form.elements.version.value = String(record.version);
  const banner = document.getElementById("client-changed");
  if (banner) banner.hidden = false;
}

function onClientChange(event) {
  for (const action of event.ui_actions || []) {
    if (action.type !== "upsert" || action.list !== "clients" || String(action.record_id) !== clientId) continue;
    const version = Number(action.record?.version || 0);
    if (version && version <= latest) continue; // our own save, or an older snapshot
    latest = version;
    rebase(action.record);
    document.getElementById("client-facts")?.dispatchEvent(new CustomEvent("clapilot:refresh"));
  }
  return true;
}

if (root) {
  // The topics of the linked sections, declared by the apps that contribute them (apps.clients.page).
  watchLinkedSections({ regionId: "client-linked", topic: "clients.linked", belongs: isMine, topics: declaredTopics(root) });
  registerMutationHandler("mandanten.client", onClientChange);
}
