/**
 * The Notizen page editor: a contenteditable rich-text page with a small toolbar, saved through
 * the save endpoint with the version it was loaded at (a stale save gets a conflict, never
 * silently overwrites), and live updates from the mutation stream: when a tool or another person
 * changes the open page, note, or the folder tree, the change appears here with a highlight. An
 * incoming page version never replaces unsaved local edits: the user chooses which one wins.
 *
 * Edits save themselves AUTOSAVE_MS after the last keystroke (and when the tab is hidden); the
 * Save button and Ctrl+S save at once. A conflict stops autosaving until the user picks a version
 * in the banner, so an autosave never overwrites anybody. Leaving with unsaved edits asks first.
 *
 * The server sanitizes every stored page (nh3), so the HTML it sends is safe to insert.
 */
import { registerMutationHandler } from "./mutations.js";

const gettext = (text) => (typeof window.gettext === "function" ? window.gettext(text) : text);
const FLASH_MS = 1600;
const AUTOSAVE_MS = Number(document.getElementById("note-editor")?.dataset.autosaveMs || 1500);
const RETRY_MS = 5000;

const editor = document.getElementById("note-editor");
const body = document.getElementById("page-body");
const titleInput = document.getElementById("page-title");
const stateLabel = document.getElementById("save-state");
const changedBanner = document.getElementById("page-changed");
const tabs = document.getElementById("page-tabs");
const csrf = () => document.querySelector("[name=csrfmiddlewaretoken]")?.value || "";

const noteId = editor?.dataset.noteId || null;
const pageId = editor?.dataset.pageId || null;
let version = Number(editor?.dataset.pageVersion || 0);
let loaded = JSON.parse(document.getElementById("page-record")?.textContent || "null");
let dirty = false;
let saving = false;
let pending = null; // a newer server version kept aside while the user has unsaved edits
let gone = false;
let autosaveTimer = null;

/** (Re)start the debounce; nothing is scheduled while a conflict waits for the user. */
function scheduleAutosave(delay = AUTOSAVE_MS) {
  window.clearTimeout(autosaveTimer);
  autosaveTimer = null;
  if (!dirty || gone || pending || !editor?.dataset.saveUrl) return;
  autosaveTimer = window.setTimeout(() => {
    autosaveTimer = null;
    save();
  }, delay);
}

function flash(element) {
  if (!element) return;
  element.classList.remove("flash-highlight");
  void element.offsetWidth;
  element.classList.add("flash-highlight");
  window.setTimeout(() => element.classList.remove("flash-highlight"), FLASH_MS);
}

function setState(text, kind = "") {
  if (!stateLabel) return;
  stateLabel.textContent = text;
  stateLabel.className = `muted ${kind}`;
}

/** The browser's own serialization of some HTML, so server and editor HTML compare fairly. */
function normalized(html) {
  const template = document.createElement("template");
  template.innerHTML = html || "";
  return template.innerHTML;
}

function applyFont(record) {
  body.style.fontFamily = record.font_family || "";
  body.style.fontSize = record.font_size ? `${record.font_size}pt` : "";
}

function untitled(title) {
  return title || gettext("Untitled page");
}

function upsertTab(record, { highlight = true } = {}) {
  if (!tabs) return;
  let tab = tabs.querySelector(`a[data-page-id="${CSS.escape(String(record.id))}"]`);
  if (!tab) {
    tab = document.createElement("a");
    tab.dataset.pageId = String(record.id);
    tab.href = `${editor.dataset.noteUrl}?page_id=${encodeURIComponent(record.id)}`;
    tabs.insertBefore(tab, tabs.querySelector("form"));
  }
  tab.textContent = untitled(record.title);
  if (highlight) flash(tab);
}

async function fetchPage(id) {
  const url = editor.dataset.pageUrlTemplate.replace(/\/0\//, `/${encodeURIComponent(id)}/`);
  const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
  if (!response.ok) return null;
  return (await response.json()).page;
}

async function refreshAttachments() {
  const response = await fetch(window.location.href, { credentials: "same-origin" });
  if (!response.ok) return;
  const doc = new DOMParser().parseFromString(await response.text(), "text/html");
  const fresh = doc.getElementById("page-attachments");
  const current = document.getElementById("page-attachments");
  if (fresh && current) {
    current.replaceWith(fresh);
    flash(fresh);
  }
}

function applyRecord(record) {
  const attachmentsChanged =
    JSON.stringify(record.audio_attachments) !== JSON.stringify(loaded?.audio_attachments) ||
    JSON.stringify(record.asset_items) !== JSON.stringify(loaded?.asset_items);
  titleInput.value = record.title || "";
  body.innerHTML = record.html || ""; // sanitized by the server on every write
  applyFont(record);
  version = Number(record.version);
  loaded = record;
  dirty = false;
  pending = null;
  changedBanner.hidden = true;
  upsertTab(record, { highlight: false });
  flash(body);
  flash(titleInput);
  setState(gettext("Updated just now"));
  if (attachmentsChanged) refreshAttachments();
}

function showConflict(text) {
  document.getElementById("page-changed-text").textContent = text;
  changedBanner.hidden = false;
  flash(changedBanner);
}

function markDirty() {
  if (gone) return;
  dirty = true;
  setState(gettext("Unsaved changes"), "unsaved");
  scheduleAutosave();
}

async function save({ overwrite = false } = {}) {
  if (gone || !editor.dataset.saveUrl) return;
  if (saving) {
    scheduleAutosave(); // once this save is answered, save what came after it
    return;
  }
  window.clearTimeout(autosaveTimer);
  autosaveTimer = null;
  saving = true;
  setState(gettext("Saving …"));
  const sentHtml = body.innerHTML;
  const sentTitle = titleInput.value;
  const expected = overwrite && pending ? Number(pending.version) : version;
  try {
    const response = await fetch(editor.dataset.saveUrl, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf(), Accept: "application/json" },
      body: JSON.stringify({ title: sentTitle, html: sentHtml, expected_version: expected }),
    });
    const data = await response.json().catch(() => ({}));
    if (response.ok && data.page) {
      const untouched = body.innerHTML === sentHtml && titleInput.value === sentTitle;
      // Show what was stored when the sanitizer changed something (e.g. removed a script).
      if (untouched && normalized(data.page.html) !== normalized(sentHtml)) body.innerHTML = data.page.html;
      version = Number(data.page.version);
      loaded = data.page;
      pending = null;
      changedBanner.hidden = true;
      dirty = !untouched;
      upsertTab(data.page, { highlight: false });
      setState(dirty ? gettext("Unsaved changes") : gettext("Saved"), dirty ? "unsaved" : "");
      scheduleAutosave(); // typed while it was saving
    } else if (response.status === 409 && data.details && data.details.page) {
      pending = data.details.page;
      showConflict(gettext("Someone else saved this page in the meantime; your changes are not saved yet."));
      setState(gettext("Not saved: conflict"), "failed");
    } else {
      setState(data.message || gettext("Saving failed."), "failed");
    }
  } catch {
    setState(gettext("Saving failed. Check your connection and try again."), "failed");
    scheduleAutosave(RETRY_MS);
  } finally {
    saving = false;
  }
}

// --- live updates ---------------------------------------------------------------------------
async function onPageUpsert(record) {
  if (String(record.note_id) !== noteId) return;
  if (String(record.id) !== pageId) {
    upsertTab(record);
    return;
  }
  if (gone || Number(record.version) <= version) return; // our own save, or an older snapshot
  const full = record.content_omitted ? await fetchPage(record.id) : record;
  if (!full || Number(full.version) <= version) return;
  if (dirty) {
    pending = full; // autosave waits until the user picks a version
    window.clearTimeout(autosaveTimer);
    upsertTab(full);
    showConflict(gettext("This page was changed elsewhere while you were editing."));
  } else {
    applyRecord(full);
  }
}

function onPageRemoved(id) {
  if (String(id) === pageId) {
    gone = true;
    editor.classList.add("is-gone");
    body.contentEditable = "false";
    document.getElementById("page-gone").hidden = false;
  }
  tabs?.querySelector(`a[data-page-id="${CSS.escape(String(id))}"]`)?.remove();
}

function noteItem(id) {
  return document.querySelector(`#note-list li[data-note-id="${CSS.escape(String(id))}"]`);
}

function refreshThenFlash(element, selector) {
  if (!element) return;
  const settle = () => flash(document.querySelector(selector));
  document.body.addEventListener("htmx:afterSettle", settle, { once: true });
  element.dispatchEvent(new CustomEvent("clapilot:refresh"));
}

function onNoteUpsert(record) {
  const item = noteItem(record.id);
  if (item) {
    item.querySelector(".note-name").textContent = record.name;
    flash(item);
  } else {
    refreshThenFlash(document.getElementById("note-list"), `#note-list li[data-note-id="${CSS.escape(String(record.id))}"]`);
  }
  if (String(record.id) === noteId) {
    const heading = document.getElementById("note-name");
    heading.textContent = record.name;
    flash(heading);
  }
}

function onNoteRemoved(id) {
  noteItem(id)?.remove();
  if (String(id) === noteId) {
    gone = true;
    editor.classList.add("is-gone");
    if (body) body.contentEditable = "false";
    document.getElementById("note-gone").hidden = false;
  }
}

registerMutationHandler("notizen", (event) => {
  for (const action of event.ui_actions || []) {
    const id = action.record_id;
    if (action.list === "note-pages" && editor && noteId) {
      if (action.type === "upsert" && action.record) onPageUpsert(action.record);
      else if (action.type === "remove") onPageRemoved(id);
    } else if (action.list === "notes") {
      if (action.type === "upsert" && action.record) onNoteUpsert(action.record);
      else if (action.type === "remove") onNoteRemoved(id);
    } else if (action.list === "note-folders" && (action.type === "upsert" || action.type === "remove")) {
      refreshThenFlash(document.getElementById("note-folders"), `[data-folder-id="${CSS.escape(String(id))}"]`);
    }
  }
  return true;
});

// --- editing --------------------------------------------------------------------------------
if (editor && body && titleInput) {
  body.addEventListener("input", markDirty);
  titleInput.addEventListener("input", markDirty);
  document.getElementById("save-page")?.addEventListener("click", () => save());
  document.getElementById("keep-mine")?.addEventListener("click", () => save({ overwrite: true }));
  document.getElementById("load-theirs")?.addEventListener("click", () => pending && applyRecord(pending));
  editor.addEventListener("keydown", (event) => {
    if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "s") {
      event.preventDefault();
      save();
    }
  });
  for (const control of editor.querySelectorAll(".editor-toolbar [data-command]")) {
    if (control.tagName === "SELECT") {
      control.addEventListener("change", () => {
        if (!control.value) return;
        body.focus();
        const value = control.dataset.command === "formatBlock" ? `<${control.value}>` : control.value;
        document.execCommand(control.dataset.command, false, value);
        if (control.dataset.command === "fontSize") control.value = "";
        markDirty();
      });
    } else {
      control.addEventListener("mousedown", (event) => event.preventDefault()); // keep the selection
      control.addEventListener("click", () => {
        body.focus();
        document.execCommand(control.dataset.command, false, null);
        markDirty();
      });
    }
  }
  window.addEventListener("beforeunload", (event) => {
    if (dirty && !gone) {
      event.preventDefault();
      event.returnValue = ""; // older Chromium asks only when this is set
    }
  });
  // Switching tabs or apps: save now rather than after the debounce (phones may never return).
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden" && dirty && !pending && !saving) save();
  });
}
