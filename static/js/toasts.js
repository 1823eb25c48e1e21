/**
 * Live notices ("toasts") about changes that concern the viewer.
 *
 * The server already sends each person only the events of records they may see. Here the page
 * decides which of those deserve a notice:
 * - none for the viewer's own changes (the event's `actor_id` is the viewer): they know;
 * - one per operation: the events of one request, tool call or the jobs it started share an
 *   `operation` id (an upload creating a document and its folder entry is one notice);
 * - grouped: when more than GROUP_AFTER arrive within GROUP_WINDOW_MS they collapse into one
 *   "5 Änderungen" notice;
 * - none when the person muted them in their settings (`toast-settings`), and none for replays.
 * The stack never covers a primary button: it sits bottom-left (full width on phones) and moves
 * to the top when it would overlap one, re-checked on scroll and resize while it is visible.
 */

const ngettext = (one, many, n) =>
  typeof window.ngettext === "function" ? window.ngettext(one, many, n) : n === 1 ? one : many;
const interpolate = (format, values) =>
  typeof window.interpolate === "function"
    ? window.interpolate(format, values, true)
    : format.replace(/%\((\w+)\)s/g, (_, key) => String(values[key]));

export const TOAST_MS = 5000;
export const GROUP_AFTER = 3;
export const GROUP_WINDOW_MS = 4000;
const REMEMBERED_OPERATIONS = 300;
const PRIMARY = "button.primary, .button.primary, input[type=submit].primary";

function readSettings() {
  try {
    return JSON.parse(document.getElementById("toast-settings")?.textContent || "{}") || {};
  } catch {
    return {};
  }
}

const settings = readSettings();
const toasted = []; // operation ids that already got their notice
let recent = []; // times of the notices shown in the current window
let group = null; // { element, count, timer } while notices are grouped

function container() {
  let element = document.getElementById("live-announcer");
  if (!element) {
    element = document.createElement("div");
    element.id = "live-announcer";
    element.className = "announcer";
    element.setAttribute("role", "status");
    element.setAttribute("aria-live", "polite");
    document.body.appendChild(element);
  }
  return element;
}

function overlaps(a, b) {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

function primaryButtons() {
  return [...document.querySelectorAll(PRIMARY)]
    .map((button) => button.getBoundingClientRect())
    .filter((rect) => rect.width > 0 && rect.height > 0 && rect.bottom > 0 && rect.top < window.innerHeight);
}

/** Bottom by default; the top when the bottom stack would cover a primary button. */
export function placeToasts() {
  const element = document.getElementById("live-announcer");
  if (!element || !element.childElementCount) return;
  const buttons = primaryButtons();
  const covers = () => {
    const box = element.getBoundingClientRect();
    return buttons.some((rect) => overlaps(box, rect));
  };
  element.classList.remove("at-top");
  if (!covers()) return;
  element.classList.add("at-top");
  if (covers()) element.classList.remove("at-top"); // both cover: the smaller evil is the default
}

let placing = false;
function schedulePlacement() {
  if (placing) return;
  placing = true;
  window.requestAnimationFrame(() => {
    placing = false;
    placeToasts();
  });
}
window.addEventListener("scroll", schedulePlacement, { passive: true });
window.addEventListener("resize", schedulePlacement, { passive: true });

function removeLater(element, onRemove) {
  return window.setTimeout(() => {
    element.remove();
    if (onRemove) onRemove();
  }, TOAST_MS);
}

function groupText(count) {
  return interpolate(ngettext("%(count)s change", "%(count)s changes", count), { count });
}

function showGrouped(extra) {
  const region = container();
  if (!group) {
    // Collapse the notices of this window into one.
    const singles = [...region.querySelectorAll(".toast:not(.toast-group)")];
    for (const single of singles) single.remove();
    const element = document.createElement("p");
    element.className = "toast toast-group";
    region.appendChild(element);
    group = { element, count: singles.length, timer: null };
  }
  group.count += extra;
  group.element.textContent = groupText(group.count);
  window.clearTimeout(group.timer);
  const current = group;
  group.timer = removeLater(group.element, () => {
    if (group === current) group = null;
  });
}

/** Show one notice (already filtered); groups it when too many arrive at once. */
export function showToast(text) {
  const now = Date.now();
  recent = recent.filter((time) => now - time < GROUP_WINDOW_MS);
  recent.push(now);
  if (group || recent.length > GROUP_AFTER) {
    showGrouped(1);
  } else {
    const element = document.createElement("p");
    element.className = "toast";
    element.textContent = text;
    container().appendChild(element);
    removeLater(element, schedulePlacement);
  }
  placeToasts();
}

/** Whether an event deserves a notice for this viewer (see the module comment). */
export function wantsToast(event, { replay = false } = {}) {
  if (replay || settings.muted) return false;
  const me = settings.me;
  if (me !== undefined && me !== null && event.actor_id !== undefined && event.actor_id !== null) {
    if (String(event.actor_id) === String(me)) return false;
  }
  return true;
}

/** The notice text of an event from the catalog (`announce_key` → text), or "" for none. */
export function toastText(event, messages) {
  for (const action of event.ui_actions || []) {
    const message = messages[action.announce_key];
    if (!message) continue;
    const record = action.record;
    const name = record && (record.title || record.name);
    return name ? `${message}: ${name}` : message;
  }
  return "";
}

/** Called for every live event: at most one notice per operation. */
export function toastForEvent(event, messages, { replay = false } = {}) {
  if (!wantsToast(event, { replay })) return false;
  const text = toastText(event, messages);
  if (!text) return false;
  const operation = event.operation || `event-${event.id}`;
  if (toasted.includes(operation)) return false;
  toasted.push(operation);
  if (toasted.length > REMEMBERED_OPERATIONS) toasted.shift();
  showToast(text);
  return true;
}
