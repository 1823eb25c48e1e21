/**
 * The Kanban board: drag and drop between columns (persisted through the move endpoint) and
 * live updates from the mutation stream. A changed task is re-fetched as a rendered card (so it
 * is permission-checked and complete); per-task request ordering plus a set of deleted ids make
 * sure a stale or out-of-order refetch never overwrites a newer state or resurrects a deleted task.
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

/** Column counts show the column's full total (cards beyond the first ones are not rendered),
 * so they move by deltas as cards arrive, leave or are dragged. */
function adjustCount(cards, delta) {
  const col = cards?.closest(".column");
  if (!col || !delta) return;
  const count = col.querySelector(".count");
  count.textContent = String(Math.max(0, Number(count.textContent) + delta));
  const empty = col.querySelector(".empty-column");
  if (empty) empty.hidden = col.querySelectorAll(".task-card").length > 0;
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
  const cards = card.parentElement;
  card.remove();
  adjustCount(cards, -1);
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
  if (existing) { const from = existing.parentElement; existing.remove(); adjustCount(from, -1); }
  const siblings = [...target.querySelectorAll(".task-card")];
  const before = siblings.find((el) => Number(el.dataset.position || 0) > record.position);
  card.dataset.position = record.position;
  target.insertBefore(card, before || null);
  card.classList.add("flash-highlight");
  setTimeout(() => card.classList.remove("flash-highlight"), 1600);
  adjustCount(target, +1);
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
    const origin = card.parentElement;
    const next = origin === zone ? card.nextSibling : null;
    const after = [...zone.querySelectorAll(".task-card")].find((el) => el !== card && e.clientY < el.getBoundingClientRect().top + el.offsetHeight / 2);
    zone.insertBefore(card, after || null);
    const position = [...zone.querySelectorAll(".task-card")].indexOf(card);
    const statusId = zone.closest(".column").dataset.statusId;
    if (zone !== origin) { adjustCount(origin, -1); adjustCount(zone, +1); }
    const body = new URLSearchParams({ status: statusId, position: String(position) });
    const response = await fetch(url(board.dataset.moveUrlTemplate, card.dataset.taskId), {
      method: "POST", body, headers: { "X-CSRFToken": csrf() },
    }).catch(() => null);
    if (!response || !response.ok) {
      origin.insertBefore(card, next); // put it back where it was
      if (zone !== origin) { adjustCount(zone, -1); adjustCount(origin, +1); }
      let message = board.dataset.moveError || "Could not move the task.";
      try { message = (await response.json()).message || message; } catch { /* keep default */ }
      showError(message);
      return;
    }
    const { task } = await response.json();
    card.dataset.version = task.version;
    card.dataset.statusId = task.status.id;
  });
  // keyboard: focus a card and press Enter to open it
  board.addEventListener("keydown", (e) => {
    const card = e.target.closest(".task-card");
    if (card && e.key === "Enter" && e.target === card) card.querySelector("a")?.click();
  });
}
