/**
 * The Kalender entry editor: the Frist fields show only for kind "deadline" (the recurrence
 * picker only for appointments), and a due date on a weekend or public holiday warns at once with
 * the day the Frist really ends on (the deadlines app's working-day endpoint decides, with the
 * office's Bundesland), offering to take that day. The server checks the same on save; this only
 * saves a round trip. The recurrence picker shows interval and end only when the entry repeats
 * (the server builds the RRULE from them); the attendee list filters as one types.
 */
const form = document.getElementById("event-form");

function kind() {
  return form.querySelector("[name=kind]")?.value;
}

function toggleDeadlineFields() {
  const deadline = kind() === "deadline";
  for (const field of form.querySelectorAll("[data-deadline-only]")) field.hidden = !deadline;
  for (const field of form.querySelectorAll("[data-event-only]")) field.hidden = deadline;
}

const UNIT_INDEX = { daily: 0, weekly: 1, monthly: 2, yearly: 3 };

function toggleRecurrence() {
  const picker = form.querySelector("[data-recurrence]");
  if (!picker) return;
  const repeat = picker.querySelector("[name=repeat]")?.value || "none";
  const simple = repeat in UNIT_INDEX;
  for (const detail of picker.querySelectorAll("[data-repeat-detail]")) detail.hidden = !simple;
  const unit = picker.querySelector("[data-interval-unit]");
  if (unit && simple) unit.textContent = unit.dataset.units.split("|")[UNIT_INDEX[repeat]];
}

function filterAttendees() {
  const picker = form.querySelector("[data-attendee-picker]");
  if (!picker) return;
  const words = (picker.querySelector("[data-attendee-search]")?.value || "").toLowerCase().trim().split(/\s+/).filter(Boolean);
  let shown = 0;
  let chosen = 0;
  for (const box of picker.querySelectorAll("input[type=checkbox]")) {
    const row = box.closest("div") || box.parentElement;
    const name = row.textContent.toLowerCase();
    // Chosen people stay visible, so a search never hides who is already invited.
    const visible = box.checked || words.every((word) => name.includes(word));
    row.hidden = !visible;
    if (visible) shown += 1;
    if (box.checked) chosen += 1;
  }
  picker.querySelector("[data-attendee-none]").hidden = shown > 0;
  const count = picker.querySelector("[data-attendee-count]");
  count.textContent = chosen ? `(${count.dataset.text.replace("{n}", String(chosen))})` : "";
}

let shiftedTo = null;

async function checkWorkingDay() {
  const box = form.querySelector("[data-shift-warning]");
  const start = form.querySelector("[name=start]")?.value || "";
  if (!box) return;
  box.hidden = true;
  shiftedTo = null;
  if (kind() !== "deadline" || start.length < 10 || form.querySelector("[name=keep_non_working_day]")?.checked) return;
  const url = `${form.dataset.workingDayUrl}?date=${encodeURIComponent(start.slice(0, 10))}`;
  try {
    const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
    if (!response.ok) return;
    const data = await response.json();
    if (data.working_day) return;
    shiftedTo = data.shifted_to;
    box.querySelector("[data-shift-message]").textContent = data.message;
    box.hidden = false;
  } catch {
    // Offline: the server warns on save.
  }
}

if (form) {
  toggleDeadlineFields();
  toggleRecurrence();
  filterAttendees();
  checkWorkingDay();
  form.querySelector("[data-attendee-search]")?.addEventListener("input", filterAttendees);
  form.querySelector("[data-attendee-search]")?.addEventListener("keydown", (event) => {
    if (event.key === "Enter") event.preventDefault(); // searching must not submit the form
  });
  form.addEventListener("change", (event) => {
    if (event.target.name === "kind") toggleDeadlineFields();
    if (event.target.name === "repeat") toggleRecurrence();
    if (event.target.name === "attendees") filterAttendees();
    if (["kind", "start", "keep_non_working_day"].includes(event.target.name)) checkWorkingDay();
  });
  form.addEventListener("click", (event) => {
    if (!event.target.closest("[data-shift-apply]") || !shiftedTo) return;
    const start = form.querySelector("[name=start]");
    start.value = shiftedTo + start.value.slice(10);
    checkWorkingDay();
  });
}
