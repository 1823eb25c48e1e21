/**
 * Document detail: live extraction progress, the workflow timeline, a banner when the document
 * is deleted elsewhere, and copying the public link.
 */
import { registerMutationHandler } from "./mutations.js";

const root = document.getElementById("document-detail");
const documentId = root?.dataset.documentId;

const FINAL = new Set(["done", "empty", "unsupported_format", "extraction_failed"]);

function refreshStatus(status) {
  const box = document.getElementById("extraction-status");
  if (box && window.htmx) window.htmx.trigger(box, "clapilot:refresh");
  // The extracted text arrives with the final state: swap in the preview too.
  if (FINAL.has(status) && window.htmx && document.getElementById("document-text")) {
    window.htmx.ajax("GET", window.location.pathname, { target: "#document-text", select: "#document-text", swap: "outerHTML" });
  }
}

if (root) {
  registerMutationHandler("documents.", (event) => {
    for (const action of event.ui_actions || []) {
      if (String(action.record_id) !== documentId) continue;
      if (action.type === "remove") {
        document.getElementById("document-deleted").hidden = false;
        for (const form of document.querySelectorAll("#document-detail form")) {
          for (const el of form.elements) el.disabled = true;
        }
      } else if (action.type === "upsert" && action.record?.workflow) {
        const box = document.getElementById("document-workflow");
        if (box && window.htmx) window.htmx.trigger(box, "clapilot:refresh");
      } else if (action.type === "upsert" && action.record?.extraction) {
        const { status, progress } = action.record.extraction;
        const bar = document.getElementById("extraction-progress");
        if (status === "running" && bar && progress != null) bar.value = progress;
        else refreshStatus(status);
      }
    }
    return false;
  });

  document.getElementById("share-copy")?.addEventListener("click", async (event) => {
    const field = document.getElementById("share-url");
    try {
      await navigator.clipboard.writeText(field.value);
    } catch {
      field.select();
      document.execCommand("copy");
    }
    event.target.textContent = event.target.dataset.copied;
  });
}
