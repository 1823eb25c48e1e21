/**
 * The Kanban board: drag and drop between columns and keyboard moves (a focused card: Alt+←/→ to
 * the previous/next column, Alt+↑/↓ within its column), both persisted through the move endpoint
 * and announced in a polite live region, and live updates from the mutation stream. A changed
 * task is re-fetched as a rendered card (so it is permission-checked and complete); per-task
 * request ordering plus a set of deleted ids make sure a stale or out-of-order refetch never
 * overwrites a newer state or resurrects a deleted task. The column counters are recounted from
 * the cards on the page (`recount`) after every change of any kind.
 */
import { registerMutationHandler } from "./mutations.js";

const board = document.getElementById("kanban");
const errorBox = document.getElementById("board-error");
const csrf = () => document.querySelector("[name=csrfmiddlewaretoken]")?.value || "";
const url = (template, id) => template.replace(/\/0\//, `/${id}/`);

const latestRequest = new Map(); // task id → sequence number of the newest refetch
const deleted = new Set();
let sequence = 0;

function showError(message) {
  if (!errorBox) return;
  errorBox.textContent = message;
  errorBox.hidden = false;
  setTimeout(() => { errorBox.hidden = true; }, 6000);
}

function column(statusId) {
  return board.querySelector(`.column[data-status-id="${statusId}"] .cards`);
}

/** The counters: the cards a column shows plus those the server did not render (beyond the
 * first ones, `data-unrendered`). One function after quick-add, drag, keyboard move and every
 * live event, so no path can forget a delta. A card that arrived twice (a quick-add's response
 * and its own live event) is dropped first, keeping the newer version. */
function recount() {
  const seen = new Map();
  for (const card of board.querySelectorAll(".task-card")) {
    const other = seen.get(card.dataset.taskId);
    if (!other) { seen.set(card.dataset.taskId, card); continue; }
    const newer = Number(card.dataset.version) > Number(other.dataset.version);
    (newer ? other : card).remove();
    if (newer) seen.set(card.dataset.taskId, card);
  }
  for (const col of board.querySelectorAll(".column")) {
    const shown = col.querySelectorAll(".task-card").length;
    col.querySelector(".count").textContent = String(shown + Number(col.dataset.unrendered || 0));
    const empty = col.querySelector(".empty-column");
    if (empty) empty.hidden = shown > 0;
  }
}

function say(text) {
  const status = document.getElementById("board-status");
  if (!status) return;
  status.textContent = "";
  window.setTimeout(() => { status.textContent = text; }, 50); // a new text is read even if unchanged
}

function matchesFilters(record) {
  if (String(record.board.id) !== board.dataset.boardId) return false;
  const q = (board.dataset.filterQ || "").toLowerCase();
  if (q && !`${record.title} ${record.description} ${record.source_label}`.toLowerCase().includes(q)) return false;
  const who = board.dataset.filterAssignee;
  if (who === "none" && record.assignee) return false;
  if (who && who !== "none" && who !== "me" && String(record.assignee?.id) !== who) return false;
  return true;
}

function removeCard(taskId) {
  const card = board.querySelector(`.task-card[data-task-id="${taskId}"]`);
  if (!card) return;
  card.remove();
  recount();
}

async function refreshCard(record) {
  const taskId = String(record.id);
  if (deleted.has(taskId)) return;
  if (!matchesFilters(record)) { removeCard(taskId); return; }
  const mine = ++sequence;
  latestRequest.set(taskId, mine);
  const response = await fetch(url(board.dataset.cardUrlTemplate, taskId), { headers: { "HX-Request": "true" } });
  if (latestRequest.get(taskId) !== mine || deleted.has(taskId)) return; // a newer state won
  if (response.status === 404) { removeCard(taskId); return; }
  if (!response.ok) return;
  const holder = document.createElement("div");
  holder.innerHTML = (await response.text()).trim();
  const card = holder.firstElementChild;
  const existing = board.querySelector(`.task-card[data-task-id="${taskId}"]`);
  if (existing && Number(existing.dataset.version) > Number(card.dataset.version)) return;
  const target = column(card.dataset.statusId);
  if (!target) return;
  const hadFocus = existing !== null && existing.contains(document.activeElement);
  if (existing) existing.remove();
  const siblings = [...target.querySelectorAll(".task-card")];
  const before = siblings.find((el) => Number(el.dataset.position || 0) > record.position);
  card.dataset.position = record.position;
  target.insertBefore(card, before || null);
  if (hadFocus) card.focus(); // a keyboard user keeps their place when the card is re-rendered
  card.classList.add("flash-highlight");
  setTimeout(() => card.classList.remove("flash-highlight"), 1600);
  recount();
}

/** Put `card` into `zone` before `before` and persist it through the move endpoint (the same
 * service call for drag and keyboard); on failure it goes back. Resolves to true on success. */
async function moveCard(card, zone, before) {
  const origin = card.parentElement;
  const next = card.nextSibling;
  const focused = card.contains(document.activeElement);
  zone.insertBefore(card, before || null);
  if (focused) card.focus(); // moving a node in the DOM drops its focus
  const position = [...zone.querySelectorAll(".task-card")].indexOf(card);
  const statusId = zone.closest(".column").dataset.statusId;
  recount();
  const body = new URLSearchParams({ status: statusId, position: String(position) });
  const response = await fetch(url(board.dataset.moveUrlTemplate, card.dataset.taskId), {
    method: "POST", body, headers: { "X-CSRFToken": csrf() },
  }).catch(() => null);
  if (!response || !response.ok) {
    const refocus = card.contains(document.activeElement);
    origin.insertBefore(card, next && next.parentElement === origin ? next : null); // put it back
    if (refocus) card.focus();
    recount();
    let message = board.dataset.moveError || "Could not move the task.";
    try { message = (await response.json()).message || message; } catch { /* keep default */ }
    showError(message);
    say(message);
    return false;
  }
  const { task } = await response.json();
  card.dataset.version = task.version;
  card.dataset.statusId = task.status.id;
  card.dataset.position = String(task.position);
  return true;
}

const KEY_MOVES = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -1, ArrowDown: 1 };

async function moveByKey(card, key) {
  const columns = [...board.querySelectorAll(".column")];
  const from = card.closest(".column");
  let zone = from.querySelector(".cards");
  let before;
  if (key === "ArrowLeft" || key === "ArrowRight") {
    const target = columns[columns.indexOf(from) + KEY_MOVES[key]];
    if (!target) { say(board.dataset.moveEdgeText || ""); return; }
    zone = target.querySelector(".cards");
    before = null; // to the end of the neighbouring column
  } else {
    const cards = [...zone.querySelectorAll(".task-card")];
    const index = cards.indexOf(card) + KEY_MOVES[key];
    if (index < 0 || index >= cards.length) return;
    before = key === "ArrowUp" ? cards[index] : cards[index].nextElementSibling;
  }
  const moved = await moveCard(card, zone, before);
  // its own live event may have re-rendered the card meanwhile: speak of the one on the page now
  const current = board.querySelector(`.task-card[data-task-id="${card.dataset.taskId}"]`) || card;
  if (!current.contains(document.activeElement)) current.focus();
  if (!moved) return;
  const column = current.closest(".column");
  const cards = [...column.querySelectorAll(".task-card")];
  say((board.dataset.movedText || "{title} → {column}")
    .replace("{title}", current.querySelector(".task-title")?.textContent.trim() || "")
    .replace("{column}", column.querySelector("h2")?.textContent.trim() || "")
    .replace("{position}", String(cards.indexOf(current) + 1))
    .replace("{count}", column.querySelector(".count")?.textContent || String(cards.length)));
}

if (board) {
  registerMutationHandler("aufgaben.task", (event) => {
    for (const action of event.ui_actions || []) {
      if (action.list !== "tasks") continue;
      if (action.type === "remove") {
        latestRequest.set(String(action.record_id), ++sequence);
        if (event.topic === "aufgaben.task.deleted") deleted.add(String(action.record_id));
        removeCard(action.record_id);
      } else if (action.type === "upsert" && action.record) {
        refreshCard(action.record);
      }
    }
    return true;
  });
  document.addEventListener("clapilot:refresh", (e) => {
    if (e.detail.topic && e.detail.topic.startsWith("aufgaben.boards")) { e.preventDefault(); window.location.reload(); }
  });

  // --- drag and drop -------------------------------------------------------------------------
  let dragged = null;
  board.addEventListener("dragstart", (e) => {
    dragged = e.target.closest(".task-card");
    if (!dragged) return;
    e.dataTransfer.effectAllowed = "move";
    e.dataTransfer.setData("text/plain", dragged.dataset.taskId);
    dragged.classList.add("dragging");
  });
  board.addEventListener("dragend", () => { dragged?.classList.remove("dragging"); dragged = null; });
  board.addEventListener("dragover", (e) => {
    if (e.target.closest("[data-dropzone]")) { e.preventDefault(); e.dataTransfer.dropEffect = "move"; }
  });
  board.addEventListener("drop", async (e) => {
    const zone = e.target.closest("[data-dropzone]");
    if (!zone || !dragged) return;
    e.preventDefault();
    const card = dragged;
    const after = [...zone.querySelectorAll(".task-card")].find((el) => el !== card && e.clientY < el.getBoundingClientRect().top + el.offsetHeight / 2);
    await moveCard(card, zone, after);
  });
  // quick-add: its card is swapped in by htmx (the live event may bring it too: recount dedupes)
  board.addEventListener("htmx:afterSwap", () => recount());
  // keyboard: Enter opens a focused card, Alt+arrows move it (see the hint #board-keys)
  board.addEventListener("keydown", (e) => {
    const card = e.target.closest(".task-card");
    if (!card || e.target !== card) return;
    if (e.key === "Enter") { card.querySelector("a")?.click(); return; }
    if (!e.altKey || !(e.key in KEY_MOVES)) return;
    e.preventDefault();
    moveByKey(card, e.key);
  });
}
