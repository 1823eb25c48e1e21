/**
 * Live task detail. A partial live record is merged into the loaded one (fields the event omits
 * stay). The editor rebases: a field the user has not touched takes the new value; a field the
 * user changed keeps their value, and its hidden `base_*` moves to the new value so a later save
 * sends only the user's own edits and never reverts a concurrent change.
 */
import { registerMutationHandler } from "./mutations.js";

const root = document.getElementById("task-detail");
const form = document.getElementById("task-form");
const FIELD_OF = {
  title: (r) => r.title,
  description: (r) => r.description,
  status: (r) => String(r.status?.id ?? ""),
  board: (r) => String(r.board?.id ?? ""),
  assignee: (r) => String(r.assignee?.id ?? ""),
  priority: (r) => r.priority,
  due_date: (r) => r.due_date || "",
  follow_up_date: (r) => r.follow_up_date || "",
  client: (r) => (r.client_id === undefined ? undefined : String(r.client_id ?? "")),
  case: (r) => (r.case_id === undefined ? undefined : String(r.case_id ?? "")),
};

let record = JSON.parse(document.getElementById("task-record")?.textContent || "{}");
let latest = Number(record.version || 0);

function rebase(next) {
  let changedUnderUser = false;
  for (const [name, pick] of Object.entries(FIELD_OF)) {
    const input = form.elements[name];
    const base = form.elements[`base_${name}`];
    if (!input || !base) continue;
    const value = pick(next);
    if (value === undefined || value === base.value) continue;
    const touched = input.value.replace(/\r\n/g, "\n") !== base.value.replace(/\r\n/g, "\n");
    if (!touched) input.value = value; else changedUnderUser = true;
    base.value = value;
    input.classList.add("flash-highlight");
    setTimeout(() => input.classList.remove("flash-highlight"), 1600);
  }
  document.getElementById("task-changed").hidden = false;
  if (changedUnderUser) document.getElementById("task-changed").classList.add("conflict");
}

function gone() {
  document.getElementById("task-deleted").hidden = false;
  for (const el of form.elements) el.disabled = true;
}

if (root && form) {
  const taskId = root.dataset.taskId;
  registerMutationHandler("aufgaben.task", (event) => {
    for (const action of event.ui_actions || []) {
      if (String(action.record_id) !== taskId || action.list !== "tasks") continue;
      if (action.type === "remove" && event.topic === "aufgaben.task.deleted") { latest = Infinity; gone(); }
      else if (action.type === "remove") { latest = Infinity; gone(); }
      else if (action.type === "upsert" && action.record && latest !== Infinity) {
        const version = Number(action.record.version || 0);
        if (version && version <= latest) continue; // out of order: an older snapshot
        latest = version;
        record = { ...record, ...action.record }; // partial records keep the fields they omit
        rebase(record);
        document.getElementById("comments")?.dispatchEvent(new CustomEvent("clapilot:refresh"));
      }
    }
    return true;
  });
}
