/**
 * The header's notification bell (templates/notifications/_bell.html).
 *
 * The server renders the count and the newest items with the page. A live `notifications.*`
 * event (one arrived, some were read in another tab) refetches the panel fragment and takes the
 * unread count from it, so the number shown is always the database's, never counted here. The
 * mark-read forms post in the background; without this script they post and redirect back.
 * The notifications page's list (#notification-rows) is refetched the same way.
 */
import { registerMutationHandler } from "./mutations.js";

const bell = document.getElementById("notification-bell");

function setCount(unread) {
  const badge = document.getElementById("notification-count");
  if (!badge) return;
  badge.textContent = String(unread);
  badge.hidden = unread <= 0;
  bell.dataset.unread = String(unread);
}

function adopt(html) {
  const panel = document.getElementById("notification-panel");
  panel.innerHTML = html;
  const head = panel.querySelector("[data-unread]");
  setCount(head ? Number.parseInt(head.dataset.unread, 10) || 0 : 0);
}

let pending = null;

async function refreshPanel() {
  if (pending) return pending; // events in a burst share one fetch
  pending = (async () => {
    try {
      const response = await fetch(bell.dataset.panelUrl, {
        credentials: "same-origin",
        headers: { "HX-Request": "true" },
      });
      if (response.ok) adopt(await response.text());
    } catch {
      /* offline: the next event or page load shows the current state */
    } finally {
      pending = null;
    }
  })();
  return pending;
}

async function refreshPageList() {
  const rows = document.getElementById("notification-rows");
  if (!rows) return;
  try {
    const response = await fetch(window.location.href, { credentials: "same-origin" });
    if (!response.ok) return;
    const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
    const replacement = fresh.getElementById("notification-rows");
    if (replacement) rows.innerHTML = replacement.innerHTML;
  } catch {
    /* keep what is shown */
  }
}

async function submitInBackground(form) {
  const data = new FormData(form);
  try {
    const response = await fetch(form.action, {
      method: "POST",
      body: data,
      credentials: "same-origin",
      headers: { "HX-Request": "true", "X-CSRFToken": data.get("csrfmiddlewaretoken") || "" },
    });
    if (response.ok) adopt(await response.text());
    else form.submit();
  } catch {
    form.submit();
  }
}

if (bell) {
  bell.addEventListener("submit", (event) => {
    const form = event.target.closest("form[data-bell-action]");
    if (!form) return;
    event.preventDefault();
    submitInBackground(form);
  });
  // Close the panel on Escape or a click elsewhere, like a menu.
  document.addEventListener("click", (event) => {
    if (bell.open && !bell.contains(event.target)) bell.open = false;
  });
  bell.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && bell.open) {
      bell.open = false;
      bell.querySelector("summary").focus();
    }
  });
  registerMutationHandler("notifications", () => {
    refreshPanel();
    refreshPageList();
    return false; // other listeners (the dashboard's card) still refresh through the fallback
  });
}
