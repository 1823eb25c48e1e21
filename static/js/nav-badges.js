/**
 * Live counts in the main navigation (apps/core/surfaces/navigation.py). A badge
 * `<span data-nav-badge="review" data-badge-topics="memory wiki.proposals">` is refetched when a
 * live event with one of its refresh topics arrives (mutations.js dispatches `clapilot:refresh`
 * on `document`); bursts of events cost one request.
 */
const script = document.getElementById("nav-badges-script");
const url = script && script.dataset.url;
const DEBOUNCE_MS = 300;
let timer = null;

function topicMatches(topic, prefix) {
  if (typeof topic !== "string" || !prefix) return false;
  return topic === prefix || topic.startsWith(`${prefix}.`);
}

function badges() {
  return Array.from(document.querySelectorAll("[data-nav-badge]"));
}

async function refetch() {
  timer = null;
  let counts;
  try {
    const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
    if (!response.ok) return;
    counts = await response.json();
  } catch {
    return; // offline: the next event tries again
  }
  for (const badge of badges()) {
    const count = counts[badge.dataset.navBadge];
    if (typeof count !== "number") continue;
    badge.textContent = String(count);
    badge.hidden = count === 0;
  }
}

document.addEventListener("clapilot:refresh", (event) => {
  const topic = event.detail && event.detail.topic;
  const wanted = badges().some((badge) =>
    (badge.dataset.badgeTopics || "").split(" ").some((prefix) => topicMatches(topic, prefix)),
  );
  if (!wanted || !url) return;
  window.clearTimeout(timer);
  timer = window.setTimeout(refetch, DEBOUNCE_MS);
});
