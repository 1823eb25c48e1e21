/**
 * The Fristenrechner in the Frist editor: a rule (or a duration), the trigger day and, for a
 * letter, the day it was posted go to /api/v1/deadlines/compute as one types; the answer's end
 * date fills the due date, its chain of steps is shown, and the rule's Vorfrist fills the
 * Vorfristen field (moved back off a weekend, never before today: a short-notice Frist says so
 * and gets today). A rule that does not apply (e.g. no posting fiction) shows the server's reason.
 * The server computes the same on save when the Vorfristen field is left empty.
 */
const form = document.getElementById("event-form");
const box = form?.querySelector("[data-fristenrechner]");

const field = (name) => form.querySelector(`[name=${name}]`);
const iso = (day) => day.toISOString().slice(0, 10);
const lang = document.documentElement.lang || "de";

function shown(text) {
  const day = new Date(`${text}T12:00:00Z`);
  return day.toLocaleDateString(lang, { weekday: "short", day: "2-digit", month: "2-digit", year: "numeric", timeZone: "UTC" });
}

function vorfrist(end, leadDays, today) {
  const day = new Date(`${end}T12:00:00Z`);
  day.setUTCDate(day.getUTCDate() - leadDays);
  while (day.getUTCDay() === 0 || day.getUTCDay() === 6) day.setUTCDate(day.getUTCDate() - 1);
  const usual = iso(day);
  return usual < today ? { day: today, usual, late: true } : { day: usual, usual, late: false };
}

function request() {
  const rule = field("rule_code").value;
  const posted = field("posted_on").value;
  const trigger = posted || field("trigger_date").value;
  const amount = field("duration_amount").value;
  const unit = field("duration_unit").value;
  if (!trigger || (!rule && !(amount && unit))) return null;
  const body = { trigger_date: trigger, posted: Boolean(posted) };
  if (rule) body.rule = rule;
  // A rule and a duration together: the server says to pick one (never silently one of them).
  if (amount) body.amount = Number(amount);
  if (unit) body.unit = unit;
  return body;
}

function say(selector, text) {
  const node = box.querySelector(selector);
  node.textContent = text || "";
  node.hidden = !text;
}

function clear() {
  say("[data-fr-error]", "");
  say("[data-fr-short-notice]", "");
  box.querySelector("[data-fr-result]").hidden = true;
}

function fill(deadline) {
  const start = field("start");
  start.value = `${deadline.end}T00:00`;
  if (field("end")) field("end").value = start.value; // a Frist is one day; an old end would precede it
  const allDay = field("all_day");
  if (allDay) allDay.checked = true;
  if (field("posted_on").value) field("trigger_date").value = deadline.start; // the Bekanntgabe
  if (deadline.rule && !field("legal_basis").value) field("legal_basis").value = deadline.rule.legal_basis;
  start.dispatchEvent(new Event("change", { bubbles: true })); // the working-day check runs again
  box.querySelector("[data-fr-end]").textContent = shown(deadline.end);
  const steps = box.querySelector("[data-fr-steps]");
  steps.replaceChildren(
    ...deadline.steps.map((step) => {
      const item = document.createElement("li");
      const basis = step.legal_basis ? ` (${step.legal_basis})` : "";
      const moved = step.shift_reason ? ` – ${step.shift_reason}` : "";
      item.textContent = `${step.label}: ${shown(step.day)}${basis}${moved}`;
      return item;
    }),
  );
  box.querySelector("[data-fr-explanation]").textContent = deadline.explanation;
  const lead = deadline.rule?.default_pre_deadline_days;
  const vorfristText = box.querySelector("[data-fr-vorfrist]");
  vorfristText.textContent = "";
  if (lead && deadline.end >= box.dataset.today) {
    const found = vorfrist(deadline.end, lead, box.dataset.today);
    field("pre_deadlines").value = found.day;
    vorfristText.textContent = box.dataset.textVorfrist.replace("{day}", shown(found.day));
    if (found.late) say("[data-fr-short-notice]", box.dataset.textShortNotice.replace("{day}", shown(found.usual)));
  }
  box.querySelector("[data-fr-result]").hidden = false;
}

let asked = 0;

async function compute() {
  const body = request();
  clear();
  if (!body) return;
  const mine = ++asked;
  try {
    const response = await fetch(box.dataset.computeUrl, {
      method: "POST",
      credentials: "same-origin",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json",
        "X-CSRFToken": form.querySelector("[name=csrfmiddlewaretoken]").value,
      },
      body: JSON.stringify(body),
    });
    const data = await response.json();
    if (mine !== asked) return; // a newer question is on its way
    if (!response.ok) {
      const fields = data.details?.field_errors || {};
      say("[data-fr-error]", Object.values(fields)[0] || data.message || box.dataset.textFailed);
      return;
    }
    fill(data.deadline);
  } catch {
    if (mine === asked) say("[data-fr-error]", box.dataset.textFailed);
  }
}

if (box) {
  box.addEventListener("change", compute);
  box.addEventListener("input", (event) => {
    if (event.target.name === "duration_amount") compute();
  });
  if (request()) compute();
}
