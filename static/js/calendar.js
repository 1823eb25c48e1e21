/**
 * Kalender pages: live updates and drag to move.
 *
 * A `calendar.*` mutation event refetches the visible view fragment (`#calendar-view` listens for
 * `clapilot:refresh` through htmx, so the server re-checks visibility) and flashes the changed
 * entry once the new fragment is in. Dragging an entry to another day in the month or week view
 * posts the move endpoint, which calls the service (time of day and duration are kept); the
 * mutation event then re-renders every open calendar, this one included. A Frist moves only
 * after the person confirms and gives a reason (the dialog in _tabs.html), with a warning when
 * the new day is a weekend or holiday and the offer to take the working day after it.
 */
import { registerMutationHandler } from "./mutations.js";

const FLASH_MS = 1600;
const pendingHighlights = new Set();

function view() {
  return document.getElementById("calendar-view");
}

function csrf() {
  return document.querySelector("[name=csrfmiddlewaretoken]")?.value || "";
}

function showError(message) {
  const box = document.getElementById("calendar-error");
  if (!box) return;
  box.textContent = message;
  box.hidden = false;
  window.setTimeout(() => { box.hidden = true; }, 6000);
}

function flash(id) {
  for (const element of document.querySelectorAll(`#calendar-view [data-record-id="${CSS.escape(String(id))}"]`)) {
    element.classList.remove("flash-highlight");
    void element.offsetWidth;
    element.classList.add("flash-highlight");
    window.setTimeout(() => element.classList.remove("flash-highlight"), FLASH_MS);
  }
}

function refresh() {
  const region = view();
  if (region) region.dispatchEvent(new CustomEvent("clapilot:refresh", { detail: { topic: "calendar" } }));
}

registerMutationHandler("calendar.", (event) => {
  if (!view()) return false;
  for (const action of event.ui_actions || []) {
    if (action.type === "upsert" && action.list === "calendar") pendingHighlights.add(String(action.record_id));
  }
  refresh();
  return true;
});

document.body.addEventListener("htmx:afterSettle", (e) => {
  if (e.target?.id !== "calendar-view" && !e.target?.querySelector?.("#calendar-view")) return;
  for (const id of pendingHighlights) flash(id);
  pendingHighlights.clear();
});

// --- confirm moving a Frist: reason, and the working-day check ------------------------------
function formatDay(iso) {
  const [y, m, d] = iso.split("-");
  return `${d}.${m}.${y}`;
}

async function workingDay(dialog, iso) {
  try {
    const response = await fetch(`${dialog.dataset.workingDayUrl}?date=${encodeURIComponent(iso)}`, {
      credentials: "same-origin",
      headers: { Accept: "application/json" },
    });
    return response.ok ? await response.json() : null;
  } catch {
    return null;
  }
}

/** Resolves to {reason, to} when the person confirms, or null when they cancel. */
async function confirmDeadlineMove(title, from, to) {
  const dialog = document.getElementById("cal-move-dialog");
  if (!dialog) return null;
  const form = dialog.querySelector("form");
  form.reset();
  dialog.querySelector("[data-move-text]").textContent = dialog.dataset.text
    .replace("{title}", title).replace("{from}", formatDay(from)).replace("{to}", formatDay(to));
  const warning = dialog.querySelector("[data-move-warning]");
  const shift = dialog.querySelector("[data-move-shift]");
  warning.hidden = true;
  shift.hidden = true;
  const check = await workingDay(dialog, to);
  if (check && !check.working_day) {
    warning.textContent = check.message;
    warning.hidden = false;
    dialog.querySelector("[data-move-shift-label]").textContent = dialog.dataset.shiftText
      .replace("{day}", formatDay(check.shifted_to));
    form.elements.use_shifted.checked = true;
    shift.hidden = false;
  }
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      if (dialog.returnValue !== "move") return resolve(null);
      const target = !shift.hidden && form.elements.use_shifted.checked ? check.shifted_to : to;
      resolve({ reason: form.elements.reason.value.trim(), to: target });
    }, { once: true });
    dialog.returnValue = ""; // Escape keeps the last value otherwise
    dialog.showModal();
    form.elements.reason.focus();
  });
}

// --- drag an entry to another day (event delegation: the fragment is replaced on refresh) -----
let dragged = null;

document.addEventListener("dragstart", (e) => {
  const chip = e.target.closest?.("#calendar-view .cal-chip[draggable=true]");
  if (!chip) return;
  dragged = chip;
  chip.classList.add("dragging");
  e.dataTransfer.effectAllowed = "move";
  e.dataTransfer.setData("text/plain", chip.dataset.eventId);
});

document.addEventListener("dragend", () => {
  dragged?.classList.remove("dragging");
  dragged = null;
  document.querySelectorAll(".cal-day.drop-target").forEach((el) => el.classList.remove("drop-target"));
});

document.addEventListener("dragover", (e) => {
  const cell = dragged && e.target.closest?.("#calendar-view .cal-day[data-date]");
  if (!cell) return;
  e.preventDefault();
  e.dataTransfer.dropEffect = "move";
  document.querySelectorAll(".cal-day.drop-target").forEach((el) => el !== cell && el.classList.remove("drop-target"));
  cell.classList.add("drop-target");
});

document.addEventListener("drop", async (e) => {
  const cell = dragged && e.target.closest?.("#calendar-view .cal-day[data-date]");
  if (!cell) return;
  e.preventDefault();
  const chip = dragged;
  const from = chip.dataset.date;
  const to = cell.dataset.date;
  cell.classList.remove("drop-target");
  if (from === to) return;
  const container = cell.closest("[data-move-url]");
  const url = container.dataset.moveUrl.replace(/\/0\//, `/${chip.dataset.eventId}/`);
  const body = new URLSearchParams({ from_date: from, to_date: to });
  if (chip.dataset.kind === "deadline") {
    const answer = await confirmDeadlineMove(chip.dataset.title || "", from, to);
    if (!answer) return;
    body.set("to_date", answer.to);
    body.set("reason", answer.reason);
  } else {
    cell.appendChild(chip); // optimistic; the live refresh renders the truth
  }
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "X-CSRFToken": csrf(), "Content-Type": "application/x-www-form-urlencoded" },
      body,
      credentials: "same-origin",
    });
    if (!response.ok) {
      const data = await response.json().catch(() => ({}));
      showError(data.message || response.statusText);
    }
  } catch (error) {
    showError(String(error));
  }
  refresh();
});
