/**
 * Speaks the semantic `announce_key` of live UI actions as a short localized notice (de/en/it via
 * Django's JavaScript catalog), in a polite live region so screen readers hear it too. Replayed
 * events stay silent: they describe the past.
 */
import { connectMutations } from "./mutations.js";

const gettext = (text) => (typeof window.gettext === "function" ? window.gettext(text) : text);
const MESSAGES = {
  "documents.document.created": () => gettext("Document added"),
  "documents.document.updated": () => gettext("Document changed"),
  "documents.document.deleted": () => gettext("Document deleted"),
  "documents.document.removed": () => gettext("A document is no longer visible to you"),
  "documents.share.created": () => gettext("Public link created"),
  "documents.share.revoked": () => gettext("Public link revoked"),
  "documents.extraction.done": () => gettext("Text extracted"),
  "documents.extraction.empty": () => gettext("No text found in the document"),
  "documents.extraction.unsupported_format": () => gettext("Document format not supported"),
  "documents.extraction.extraction_failed": () => gettext("Text extraction failed"),
  "documents.folder.created": () => gettext("Folder created"),
  "documents.folder.updated": () => gettext("Folder changed"),
  "documents.folder.deleted": () => gettext("Folder deleted"),
  "wiki.page.created": () => gettext("Wiki page created"),
  "wiki.page.updated": () => gettext("Wiki page changed"),
  "wiki.page.deleted": () => gettext("Wiki page deleted"),
  "wiki.proposal.created": () => gettext("New wiki proposal to review"),
  "wiki.proposal.accepted": () => gettext("Wiki proposal accepted"),
  "wiki.proposal.rejected": () => gettext("Wiki proposal rejected"),
  "widgets.widget.created": () => gettext("Widget added"),
  "widgets.widget.updated": () => gettext("Widget changed"),
  "widgets.widget.data_updated": () => gettext("Widget data updated"),
  "widgets.widget.deleted": () => gettext("Widget removed"),
  "notizen.folder.created": () => gettext("Note folder created"),
  "notizen.folder.updated": () => gettext("Note folder changed"),
  "notizen.folder.deleted": () => gettext("Note folder deleted"),
  "notizen.note.created": () => gettext("Note created"),
  "notizen.note.updated": () => gettext("Note changed"),
  "notizen.note.deleted": () => gettext("Note deleted"),
  "notizen.note.removed": () => gettext("A note is no longer visible to you"),
  "notizen.page.created": () => gettext("Note page added"),
  "notizen.page.updated": () => gettext("Note page changed"),
  "notizen.page.deleted": () => gettext("Note page deleted"),
  "aufgaben.task.created": () => gettext("Task created"),
  "aufgaben.task.updated": () => gettext("Task changed"),
  "aufgaben.task.moved": () => gettext("Task moved"),
  "aufgaben.task.deleted": () => gettext("Task deleted"),
  "aufgaben.task.removed": () => gettext("A task is no longer visible to you"),
  "aufgaben.task.resurfaced": () => gettext("Follow-up due: task is back on the list"),
  "aufgaben.comment.added": () => gettext("New comment on a task"),
  "aufgaben.board.created": () => gettext("New board"),
  "aufgaben.statuses.changed": () => gettext("Task statuses changed"),
  "calendar.event.created": () => gettext("Calendar entry created"),
  "calendar.event.updated": () => gettext("Calendar entry changed"),
  "calendar.event.deleted": () => gettext("Calendar entry deleted"),
  "calendar.event.removed": () => gettext("A calendar entry is no longer visible to you"),
};

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
      announce(message(), action.record);
    }
  },
});
