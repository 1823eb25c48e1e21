/**
 * The Kalender entry editor: the Frist fields show only for kind "deadline", and a due date on a
 * weekend or public holiday warns at once with the day the Frist really ends on (the deadlines
 * app's working-day endpoint decides, with the office's Bundesland), offering to take that day.
 * The server checks the same on save; this only saves a round trip.
 */
const form = document.getElementById("event-form");

function kind() {
  return form.querySelector("[name=kind]")?.value;
}

function toggleDeadlineFields() {
  const deadline = kind() === "deadline";
  for (const field of form.querySelectorAll("[data-deadline-only]")) field.hidden = !deadline;
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
  checkWorkingDay();
  form.addEventListener("change", (event) => {
    if (event.target.name === "kind") toggleDeadlineFields();
    if (["kind", "start", "keep_non_working_day"].includes(event.target.name)) checkWorkingDay();
  });
  form.addEventListener("click", (event) => {
    if (!event.target.closest("[data-shift-apply]") || !shiftedTo) return;
    const start = form.querySelector("[name=start]");
    start.value = shiftedTo + start.value.slice(10);
    checkWorkingDay();
  });
}
