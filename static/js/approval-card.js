// The approval card of the chat page: a tool call the copilot wants to make waits for the
// person's decision (apps/approvals). An APPROVAL run event with a preview draws the card; one
// with a decision (or the answer of a button) turns it into the decided state. The buttons post
// to the decision endpoint; the server executes exactly the staged call, once, and resumes the
// run, whose further events arrive on the chat's stream as usual.

function csrfToken() {
  const match = document.cookie.match(/(?:^|; )csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

const FINAL_TEXT = {
  executed: "executed",
  failed: "failed",
  denied: "denied",
  expired: "expired",
  recorded: "recorded",
};

export function approvalCards(stream, options) {
  const { text, cardUrlTemplate, pendingUrl } = options;

  function find(id) {
    return stream.querySelector(`.approval-card[data-staged-id="${CSS.escape(String(id))}"]`);
  }

  function settle(card, staged) {
    card.dataset.status = staged.status;
    card.classList.toggle("decided", staged.status !== "pending");
    const state = card.querySelector(".approval-state");
    if (staged.status === "pending") {
      card.querySelector(".approval-suggest").hidden = !staged.suggest;
      const alike = card.querySelector('[data-decision="approve_alike"]');
      if (alike) { alike.hidden = staged.alike_allowed === false; }
      if (staged.reason_label) { card.querySelector(".approval-reason").textContent = staged.reason_label; }
      return;
    }
    card.querySelector(".approval-actions")?.remove();
    card.querySelector(".approval-suggest").hidden = true;
    let line = text[FINAL_TEXT[staged.status]] || staged.status_label || staged.status;
    if (staged.status === "failed" && staged.code) { line = `${line} (${staged.code})`; }
    state.textContent = line;
  }

  async function decide(card, decision, button) {
    const buttons = card.querySelectorAll(".approval-actions button");
    buttons.forEach((b) => { b.disabled = true; });
    const state = card.querySelector(".approval-state");
    state.textContent = text.deciding;
    const body = new URLSearchParams({ decision });
    try {
      const response = await fetch(card.dataset.decideUrl, {
        method: "POST",
        headers: { "X-CSRFToken": csrfToken(), Accept: "application/json" },
        body,
      });
      const data = await response.json().catch(() => ({}));
      if (data.staged) { settle(card, data.staged); }
      if (!response.ok) { state.textContent = data.message || response.statusText; }
    } catch (error) {
      state.textContent = error.message;
    } finally {
      if (card.dataset.status === "pending") { buttons.forEach((b) => { b.disabled = false; }); }
    }
    button.blur();
  }

  function button(label, decision, cls) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.dataset.decision = decision;
    if (cls) { b.className = cls; }
    return b;
  }

  function draw(container, staged) {
    let card = find(staged.staged_id ?? staged.id);
    if (card) { return card; }
    const id = staged.staged_id ?? staged.id;
    card = document.createElement("div");
    card.className = "approval-card card";
    card.dataset.stagedId = String(id);
    card.dataset.status = "pending";
    card.dataset.decideUrl = staged.decide_url || cardUrlTemplate.replace("/0/", `/${id}/`) + "entscheiden/";
    card.setAttribute("role", "group");
    card.setAttribute("aria-label", text.title);
    const title = document.createElement("p");
    title.className = "approval-title";
    title.textContent = text.title;
    const preview = document.createElement("p");
    preview.className = "approval-preview";
    preview.textContent = staged.preview || staged.tool;
    const reason = document.createElement("p");
    reason.className = "muted approval-reason";
    reason.textContent = staged.reason_label || "";
    const suggest = document.createElement("p");
    suggest.className = "approval-suggest";
    suggest.textContent = text.suggest;
    suggest.hidden = true;
    const actions = document.createElement("div");
    actions.className = "approval-actions";
    actions.append(
      button(text.approve, "approve", "primary"),
      button(text.deny, "deny", "danger"),
      button(text.approveAlike, "approve_alike", ""),
    );
    actions.addEventListener("click", (e) => {
      const b = e.target.closest("button[data-decision]");
      if (b && !b.disabled) { decide(card, b.dataset.decision, b); }
    });
    const state = document.createElement("p");
    state.className = "approval-state";
    state.setAttribute("role", "status");
    card.append(title, preview, reason, suggest, actions, state);
    container.appendChild(card);
    return card;
  }

  async function refresh(card) {
    try {
      const response = await fetch(cardUrlTemplate.replace("/0/", `/${card.dataset.stagedId}/`), {
        headers: { Accept: "application/json" },
      });
      if (response.ok) { settle(card, (await response.json()).staged); }
    } catch {
      // offline: the decision event brings the state later
    }
  }

  // An APPROVAL run event: a staged call (preview) or a decision on one.
  function apply(bubble, payload) {
    if (payload.decision) {
      const card = find(payload.staged_id);
      if (card) { settle(card, { status: payload.status, code: payload.code }); }
      // The call's step line now shows how it ended (it read "failed" while it waited).
      const line = payload.call_id && stream.querySelector(`li[data-call-id="${CSS.escape(payload.call_id)}"]`);
      if (line) { line.className = payload.ok ? "ok" : "failed"; }
      return;
    }
    if (payload.staged_id == null) { return; }
    const card = draw(bubble, payload);
    refresh(card);
    // The navigation's count of waiting approvals (nav-badges.js listens for this topic).
    document.dispatchEvent(new CustomEvent("clapilot:refresh", { detail: { topic: "approvals" } }));
  }

  // The chat's pending calls when the page opens (their events lie before the replay cursor).
  async function loadPending(container) {
    try {
      const response = await fetch(pendingUrl, { headers: { Accept: "application/json" } });
      if (!response.ok) { return; }
      for (const staged of (await response.json()).staged) {
        settle(draw(container(), staged), staged);
      }
    } catch {
      // offline: nothing to draw
    }
  }

  return { apply, loadPending };
}
