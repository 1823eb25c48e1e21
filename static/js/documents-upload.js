/**
 * Documents page: drag-and-drop upload of several files, one XHR per file with its own progress
 * bar (fetch cannot report upload progress), and live extraction states in the list.
 */
import { registerMutationHandler } from "./mutations.js";

const zone = document.getElementById("upload-zone");
const input = document.getElementById("upload-input");
const list = document.getElementById("upload-list");
const gettext = (text) => (window.gettext ? window.gettext(text) : text);
const PARALLEL = 3;
const queue = [];
let running = 0;

function csrfToken() {
  const match = document.cookie.match(/(?:^|; )csrftoken=([^;]+)/);
  if (match) return decodeURIComponent(match[1]);
  const headers = JSON.parse(document.body.getAttribute("hx-headers") || "{}");
  return headers["X-CSRFToken"] || "";
}

function row(file) {
  const item = document.createElement("li");
  const name = document.createElement("span");
  name.className = "upload-name";
  name.textContent = file.name;
  const bar = document.createElement("progress");
  bar.max = 100;
  bar.value = 0;
  const state = document.createElement("span");
  state.className = "upload-state muted";
  state.textContent = gettext("Waiting …");
  item.append(name, bar, state);
  list.append(item);
  return { item, bar, state };
}

function fail(ui, message) {
  ui.item.classList.add("failed");
  ui.bar.remove();
  ui.state.className = "upload-state error";
  ui.state.textContent = message;
}

function send(file, ui) {
  running += 1;
  const body = new FormData();
  body.append("file", file);
  if (zone.dataset.folder) body.append("folder", zone.dataset.folder);
  const xhr = new XMLHttpRequest();
  xhr.open("POST", zone.dataset.uploadUrl);
  xhr.setRequestHeader("X-CSRFToken", csrfToken());
  xhr.upload.addEventListener("progress", (event) => {
    if (!event.lengthComputable) return;
    ui.bar.value = Math.round((event.loaded / event.total) * 100);
    ui.state.textContent = `${ui.bar.value} %`;
  });
  xhr.addEventListener("load", () => {
    let data = {};
    try { data = JSON.parse(xhr.responseText); } catch { /* a proxy's HTML error page */ }
    if (xhr.status === 201 && data.document) {
      ui.bar.value = 100;
      ui.state.textContent = "";
      const link = document.createElement("a");
      link.href = data.document.url;
      link.textContent = gettext("Uploaded – extracting text …");
      link.dataset.uploadedId = data.document.id;
      ui.state.append(link);
      ui.item.dataset.recordId = data.document.id;
    } else {
      fail(ui, data.message || (xhr.status === 413 ? gettext("The file is too large.") : gettext("Upload failed.")));
    }
  });
  xhr.addEventListener("error", () => fail(ui, gettext("Upload failed: no connection.")));
  xhr.addEventListener("loadend", () => { running -= 1; next(); });
  ui.state.textContent = "0 %";
  xhr.send(body);
}

function next() {
  while (running < PARALLEL && queue.length) {
    const { file, ui } = queue.shift();
    send(file, ui);
  }
}

function enqueue(files) {
  const max = Number(zone.dataset.maxBytes || 0);
  for (const file of files) {
    const ui = row(file);
    if (file.size === 0) fail(ui, gettext("The file is empty."));
    else if (max && file.size > max) fail(ui, gettext("The file is too large."));
    else queue.push({ file, ui });
  }
  next();
}

if (zone && input) {
  input.addEventListener("change", () => { enqueue(Array.from(input.files)); input.value = ""; });
  for (const type of ["dragenter", "dragover"]) {
    zone.addEventListener(type, (event) => { event.preventDefault(); zone.classList.add("dragging"); });
  }
  for (const type of ["dragleave", "drop"]) {
    zone.addEventListener(type, () => zone.classList.remove("dragging"));
  }
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    if (event.dataTransfer?.files?.length) enqueue(Array.from(event.dataTransfer.files));
  });
}

// Extraction progress: update the status badge of a listed or just-uploaded document in place.
registerMutationHandler("documents.extraction", (event) => {
  for (const action of event.ui_actions || []) {
    const extraction = action.record?.extraction;
    if (action.type !== "upsert" || !extraction) continue;
    const id = String(action.record_id);
    const badge = document.querySelector(`tr[data-record-id="${CSS.escape(id)}"] [data-extraction-status]`);
    if (badge) {
      badge.className = `badge extraction-${extraction.status}`;
      badge.textContent = extraction.status_label || extraction.status;
    }
    const uploaded = document.querySelector(`[data-uploaded-id="${CSS.escape(id)}"]`);
    if (uploaded) {
      const progress = extraction.status === "running" && extraction.progress ? ` ${extraction.progress} %` : "";
      uploaded.textContent = (extraction.status_label || extraction.status) + progress;
      if (extraction.message) uploaded.textContent += ` – ${extraction.message}`;
    }
  }
  return false; // the list fragment still refreshes on documents.* refresh topics
});
