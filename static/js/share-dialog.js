/**
 * The share dialog (templates/core/_share_dialog.html): a `[data-share-open=<url>]` button opens
 * it for one record; the dialog lists the grants from the domain's share endpoint, searches people
 * and groups, and grants or revokes by POST (the endpoint answers the shares after the change, or
 * `{code, message}` when it refused: the message is shown, nothing changed).
 *
 * Live: "<domain>.*.shared" events upsert a record into `[data-list]` when the list offers a
 * `<template data-share-item>` (e.g. a new board tab), "*.unshared" events remove it, and any
 * `[data-share-scope=<record id>]` (e.g. the open board) is replaced by its `data-share-gone` text.
 */
import { registerMutationHandler } from "./mutations.js";

const dialog = document.getElementById("share-dialog");
const texts = document.getElementById("share-dialog-texts")?.dataset || {};
const csrf = () => document.querySelector("[name=csrfmiddlewaretoken]")?.value
  || document.cookie.match(/(?:^|; )csrftoken=([^;]+)/)?.[1] || "";

let current = null; // the share endpoint of the open dialog
let searchTimer = null;
let searchSequence = 0; // a slow answer to an older query never replaces a newer one

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text) node.textContent = text;
  return node;
}

function showError(message) {
  const box = dialog.querySelector("[data-share-error]");
  box.textContent = message || "";
  box.hidden = !message;
}

function render(data) {
  const owner = dialog.querySelector("[data-share-owner]");
  owner.textContent = data.owner ? (texts.owner || "{name}").replace("{name}", data.owner.label) : "";
  const list = dialog.querySelector("[data-share-grants]");
  list.replaceChildren();
  const levels = Object.fromEntries((data.levels || []).map((l) => [l.key, l.label]));
  for (const grant of data.grants || []) {
    const item = el("li", { "data-share-key": grant.key });
    const name = grant.kind === "group" ? `${grant.label} (${texts.group || "Group"})` : grant.label;
    item.append(el("span", { class: "share-name" }, name));
    if ((data.levels || []).length > 1) item.append(el("span", { class: "muted share-level" }, levels[grant.level] || grant.level));
    if (data.can_manage) {
      const remove = el("button", { type: "button", class: "link danger", "data-share-revoke": grant.key }, texts.remove || "Remove");
      remove.setAttribute("aria-label", `${texts.remove || "Remove"}: ${name}`);
      item.append(remove);
    }
    list.append(item);
  }
  dialog.querySelector("[data-share-empty]").hidden = (data.grants || []).length > 0;
  dialog.querySelector("[data-share-add]").hidden = !data.can_manage || data.shareable === false;
  const select = dialog.querySelector("[data-share-level]");
  select.replaceChildren(...(data.levels || []).map((l) => el("option", { value: l.key }, l.label)));
  select.hidden = (data.levels || []).length < 2;
}

async function call(method, body) {
  const response = await fetch(current, {
    method,
    body,
    headers: { "X-CSRFToken": csrf(), Accept: "application/json" },
    credentials: "same-origin",
  }).catch(() => null);
  let data = null;
  try { data = await response.json(); } catch { /* not JSON */ }
  if (!response || !response.ok) { showError(data?.message || texts.failed); return null; }
  showError("");
  render(data);
  return data;
}

async function post(action, target) {
  const body = new URLSearchParams({ action, target, level: dialog.querySelector("[data-share-level]").value || "view" });
  return call("POST", body);
}

async function search(query) {
  const url = new URL(dialog.dataset.searchUrl, window.location.origin);
  url.searchParams.set("q", query);
  const mine = ++searchSequence;
  const response = await fetch(url, { headers: { Accept: "application/json" } }).catch(() => null);
  if (!response || !response.ok || mine !== searchSequence) return;
  const { results } = await response.json();
  if (mine !== searchSequence) return;
  const taken = new Set([...dialog.querySelectorAll("[data-share-key]")].map((n) => n.dataset.shareKey));
  const list = dialog.querySelector("[data-share-results]");
  list.replaceChildren(...results.filter((r) => !taken.has(r.key)).map((r) => {
    const item = el("li");
    const label = r.kind === "group" ? `${r.label} (${texts.group || "Group"})` : r.label;
    item.append(el("button", { type: "button", class: "link", "data-share-grant": r.key }, label));
    return item;
  }));
}

if (dialog) {
  document.addEventListener("click", async (e) => {
    const opener = e.target.closest("[data-share-open]");
    if (!opener) return;
    current = opener.dataset.shareOpen;
    dialog.querySelector("[data-share-title]").textContent = opener.dataset.shareName ? `„${opener.dataset.shareName}“` : "";
    dialog.querySelector("[data-share-results]").replaceChildren();
    dialog.querySelector("#share-search").value = "";
    showError("");
    dialog.showModal();
    await call("GET");
    search("");
  });
  dialog.addEventListener("click", async (e) => {
    const add = e.target.closest("[data-share-grant]");
    const revoke = e.target.closest("[data-share-revoke]");
    if (add) {
      if (await post("grant", add.dataset.shareGrant)) add.closest("li").remove();
    } else if (revoke) {
      await post("revoke", revoke.dataset.shareRevoke);
    }
  });
  // Enter in the search box adds the first match instead of submitting (closing) the dialog.
  dialog.querySelector("#share-search").addEventListener("keydown", (e) => {
    if (e.key !== "Enter") return;
    e.preventDefault();
    dialog.querySelector("[data-share-results] [data-share-grant]")?.click();
  });
  dialog.querySelector("#share-search").addEventListener("input", (e) => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => search(e.target.value), 200);
  });
}

// --- live: records shared with or taken from the viewer ------------------------------------------
function addShared(action) {
  const list = document.querySelector(`[data-list="${CSS.escape(action.list)}"]`);
  const template = list?.querySelector("template[data-share-item]");
  if (!template || !action.record) return false;
  if (list.querySelector(`[data-record-id="${CSS.escape(action.record_id)}"]`)) return true;
  const item = template.content.firstElementChild.cloneNode(true);
  item.dataset.recordId = action.record_id;
  item.querySelector("[data-share-name]").textContent = action.record.name;
  const link = item.matches("a") ? item : item.querySelector("a");
  if (link && action.record.url) link.href = action.record.url;
  const label = item.querySelector("[data-share-label]");
  if (label) label.textContent = action.record.visibility_label || "";
  template.before(item);
  item.classList.add("flash-highlight");
  return true;
}

function removeShared(action) {
  document.querySelector(`[data-list="${CSS.escape(action.list)}"] [data-record-id="${CSS.escape(action.record_id)}"]`)?.remove();
  for (const scope of document.querySelectorAll(`[data-share-scope="${CSS.escape(action.record_id)}"]`)) {
    const notice = el("p", { class: "banner warning", role: "status" }, scope.dataset.shareGone || "");
    scope.replaceWith(notice);
  }
}

registerMutationHandler("*", (event) => {
  if (!/\.(shared|unshared)$/.test(event.topic || "")) return false;
  for (const action of event.ui_actions || []) {
    if (action.type === "upsert" && event.topic.endsWith(".shared")) addShared(action);
    else if (action.type === "remove") removeShared(action);
  }
  return true;
});
