// The chat page: posts messages to the REST API and renders the run events streamed over
// /ws/chat/<session>/ (tokens, tool status lines, the final sanitized answer). Reconnects with
// ?after=<last event id> so a dropped socket replays what it missed. Attachments (button or
// drag & drop onto the composer) are uploaded as documents at once; the message carries their ids.
// Tool steps show their localized label and link the records they created or changed; the chat's
// title and the chat list follow the user's mutation stream (a generated title, a rename or a
// deletion in another tab); older messages load on demand. A stopped or failed answer says so in
// its bubble (partial answer kept) with "Try again"; a failed tool step opens to its code and message.
import { approvalCards } from "./approval-card.js";
import { registerMutationHandler } from "./mutations.js";

function csrfToken() {
  const match = document.cookie.match(/(?:^|; )csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

export function startChat(form, text) {
  const config = JSON.parse(form.dataset.config);
  const stream = document.getElementById("chat-stream");
  const input = document.getElementById("chat-input");
  const stopButton = document.getElementById("chat-stop");
  const errorLine = document.getElementById("chat-error");
  let after = config.after || 0;
  let runId = config.run;
  let bubble = null;
  let retry = 500;
  const attachList = document.getElementById("chat-attachments");
  const fileInput = document.getElementById("chat-files");
  let attachments = [];  // {file, li, doc (once uploaded), promise}
  const approvals = approvalCards(stream, {
    text: text.approval,
    cardUrlTemplate: form.dataset.approvalUrlTemplate,
    pendingUrl: form.dataset.approvalsUrl,
  });

  function attachmentLinks(docs) {
    const list = document.createElement("ul");
    list.className = "attachments";
    for (const doc of docs) {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = form.dataset.documentUrlTemplate.replace("/0/", `/${doc.id}/`);
      a.textContent = doc.title;
      li.appendChild(a);
      list.appendChild(li);
    }
    return list;
  }

  function refreshAttachList() { attachList.hidden = attachments.length === 0; }

  function upload(file) {
    const item = { file, doc: null };
    item.li = document.createElement("li");
    item.li.className = "uploading";
    const label = document.createElement("span");
    label.textContent = `${file.name} · ${text.uploading}`;
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "remove";
    remove.textContent = "×";
    remove.title = text.remove;
    remove.setAttribute("aria-label", `${text.remove}: ${file.name}`);
    remove.addEventListener("click", () => {
      attachments = attachments.filter((a) => a !== item);
      item.li.remove();
      refreshAttachList();
    });
    item.li.append(label, remove);
    attachList.appendChild(item.li);
    attachments.push(item);
    refreshAttachList();
    const data = new FormData();
    data.append("file", file);
    item.promise = fetch(form.dataset.attachUrl, {
      method: "POST", headers: { "X-CSRFToken": csrfToken() }, body: data,
    }).then(async (response) => {
      const body = await response.json().catch(() => ({}));
      if (!response.ok) { throw new Error(body.message || response.statusText); }
      item.doc = body;
      item.li.className = "ready";
      label.textContent = body.title;
    }).catch((error) => {
      attachments = attachments.filter((a) => a !== item);
      item.li.remove();
      refreshAttachList();
      showError(`${text.uploadFailed} ${file.name}: ${error.message}`);
    });
  }

  function addFiles(files) {
    for (const file of files) { upload(file); }
  }

  if (fileInput) {
    fileInput.addEventListener("change", () => { addFiles(fileInput.files); fileInput.value = ""; });
    form.addEventListener("dragover", (e) => {
      if (e.dataTransfer && Array.from(e.dataTransfer.types).includes("Files")) {
        e.preventDefault();
        form.classList.add("dragging");
      }
    });
    form.addEventListener("dragleave", (e) => {
      if (!form.contains(e.relatedTarget)) { form.classList.remove("dragging"); }
    });
    form.addEventListener("drop", (e) => {
      form.classList.remove("dragging");
      if (!e.dataTransfer || !e.dataTransfer.files.length) { return; }
      e.preventDefault();
      if (!fileInput.disabled) { addFiles(e.dataTransfer.files); }
    });
  }

  function scroll() { stream.scrollTop = stream.scrollHeight; }

  function currentBubble() {
    if (!bubble) {
      bubble = document.createElement("div");
      bubble.className = "bubble assistant streaming";
      bubble.innerHTML = '<ul class="tool-lines"></ul><div class="answer"></div><ul class="record-links" hidden></ul>';
      bubble.querySelector(".record-links").setAttribute("aria-label", text.changed);
      bubble.querySelector(".answer").textContent = text.working;
      bubble.dataset.fresh = "1";
      stream.appendChild(bubble);
    }
    return bubble;
  }

  // The stop button exists only while a run of this chat is active.
  function setRun(id) {
    runId = id;
    stopButton.hidden = !id;
  }

  function addLinks(b, links) {
    const list = b.querySelector(".record-links");
    if (!list) { return; }
    const known = new Set(Array.from(list.querySelectorAll("a"), (a) => a.getAttribute("href")));
    for (const link of links) {
      // Same-origin paths only (the server filters them too): a link never leaves the instance.
      if (typeof link.url !== "string" || !link.url.startsWith("/") || link.url.startsWith("//")) { continue; }
      if (known.has(link.url)) { continue; }
      known.add(link.url);
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = link.url;
      a.textContent = link.title || link.url;
      li.appendChild(a);
      list.appendChild(li);
    }
    list.hidden = list.children.length === 0;
  }

  // A failed tool step opens to show its code and message (the tool's own words).
  function toolError(li, code, message) {
    const details = document.createElement("details");
    details.className = "tool-error";
    const summary = document.createElement("summary");
    summary.textContent = li.textContent;
    const body = document.createElement("p");
    const codeLine = document.createElement("code");
    codeLine.className = "tool-error-code";
    codeLine.textContent = code;
    const reason = document.createElement("span");
    reason.className = "tool-error-message";
    reason.textContent = message || text.noReason;
    body.append(codeLine, " ", reason);
    details.append(summary, body);
    li.replaceChildren(details);
  }

  // The stop or failure of a run inside its bubble (the server renders the same after a reload).
  function showOutcome(b, runIdOfBubble, payload) {
    b.classList.add("ended", payload.status);
    const box = document.createElement("div");
    box.className = `run-outcome ${payload.status}`;
    box.setAttribute("role", "status");
    box.dataset.reason = payload.reason || payload.error_code || "";
    const line = document.createElement("p");
    line.className = "outcome-text";
    if (payload.status === "cancelled") {
      line.textContent = payload.message || text.stopped;
    } else {
      line.textContent = `${text.failed} ${payload.message || ""} `;
      const code = document.createElement("code");
      code.className = "outcome-code";
      code.textContent = box.dataset.reason;
      line.appendChild(code);
    }
    box.appendChild(line);
    const retry = document.createElement("button");
    retry.type = "button";
    retry.className = "chat-retry";
    retry.dataset.url = form.dataset.retryUrlTemplate.replace("/0/", `/${runIdOfBubble}/`);
    retry.textContent = text.retry;
    box.appendChild(retry);
    b.appendChild(box);
  }

  // Only the chat's last answer can be tried again: older outcomes keep their text, not the button.
  function dropRetries() {
    for (const button of stream.querySelectorAll(".chat-retry")) { button.remove(); }
  }

  function showError(message) {
    errorLine.textContent = message;
    errorLine.hidden = !message;
  }

  function apply(event) {
    after = Math.max(after, event.id);
    const b = currentBubble();
    const answer = b.querySelector(".answer");
    if (event.kind === "token") {
      if (b.dataset.fresh) { answer.textContent = ""; delete b.dataset.fresh; }
      answer.textContent += event.payload.text;
    } else if (event.kind === "turn") {
      if (!b.dataset.fresh) { answer.textContent = ""; }
    } else if (event.kind === "tool_started") {
      const li = document.createElement("li");
      li.className = "running";
      li.dataset.callId = event.payload.call_id;
      li.textContent = event.payload.label || event.payload.name;
      li.title = event.payload.name;
      b.querySelector(".tool-lines").appendChild(li);
    } else if (event.kind === "tool_progress") {
      const li = b.querySelector(`li[data-call-id="${CSS.escape(event.payload.call_id)}"]`);
      if (li) { li.dataset.elapsed = `${Math.round(event.payload.elapsed)} s`; }
    } else if (event.kind === "todo") {
      let list = b.querySelector(".todo-list");
      if (!list) {
        list = document.createElement("ol");
        list.className = "todo-list";
        b.insertBefore(list, answer);
      }
      list.replaceChildren(...event.payload.items.map((item) => {
        const li = document.createElement("li");
        li.className = item.status;
        li.textContent = item.title;
        return li;
      }));
    } else if (event.kind === "tool_finished") {
      const li = b.querySelector(`li[data-call-id="${CSS.escape(event.payload.call_id)}"]`);
      const waits = event.payload.code === "approval_required";  // until its card is decided
      if (li) {
        li.className = event.payload.ok ? "ok" : waits ? "waiting" : "failed";
        delete li.dataset.elapsed;
        if (!event.payload.ok && !waits) { toolError(li, event.payload.code || "failed", event.payload.message); }
      }
      addLinks(b, event.payload.links || []);
    } else if (event.kind === "approval") {
      approvals.apply(b, event.payload);
    } else if (event.kind === "final") {
      answer.innerHTML = event.payload.html;  // rendered and nh3-sanitized on the server
    } else if (event.kind === "status" && ["queued", "running"].includes(event.payload.status)) {
      setRun(event.run_id);  // a run resumed after a decision on its approval card
    } else if (event.kind === "status" && event.payload.status === "waiting_approval") {
      b.classList.remove("streaming");  // paused on its approval cards; stop stays possible
      if (b.dataset.fresh) { b.querySelector(".answer").textContent = ""; delete b.dataset.fresh; }
      bubble = null;
      setRun(event.run_id);
    } else if (event.kind === "status") {
      b.classList.remove("streaming");
      if (b.dataset.fresh) { answer.textContent = ""; delete b.dataset.fresh; }  // not "working" any more
      if (["cancelled", "failed"].includes(event.payload.status)) { showOutcome(b, event.run_id, event.payload); }
      bubble = null;
      setRun(null);
    }
    scroll();
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/ws/chat/${config.session}/?after=${after}`);
    socket.onopen = () => { retry = 500; };
    socket.onmessage = (msg) => {
      const data = JSON.parse(msg.data);
      if (data.type === "event" && data.event.id > after) { apply(data.event); }
    };
    socket.onclose = () => { setTimeout(connect, retry); retry = Math.min(retry * 2, 10000); };
  }

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const content = input.value.trim();
    if (!content) { return; }
    showError("");
    const sendButton = document.getElementById("chat-send");
    if (attachments.some((a) => !a.doc)) {
      sendButton.disabled = true;
      showError(text.waitUploads);
      await Promise.all(attachments.map((a) => a.promise));
      sendButton.disabled = false;
      showError("");
    }
    const docs = attachments.filter((a) => a.doc).map((a) => a.doc);
    const body = { content };
    if (docs.length) { body.document_ids = docs.map((d) => d.id); }
    const model = form.querySelector("#chat-model");
    if (model) { body.model_id = model.value; }
    const response = await fetch(form.dataset.messagesUrl, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "X-CSRFToken": csrfToken(),
        "X-User-Timezone": Intl.DateTimeFormat().resolvedOptions().timeZone,
      },
      body: JSON.stringify(body),
    });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) { showError(data.message || data.detail || response.statusText); return; }
    const mine = document.createElement("div");
    mine.className = "bubble user";
    const mineText = document.createElement("div");
    mineText.className = "text";
    mineText.textContent = content;  // line breaks kept by CSS (white-space: pre-wrap)
    mine.appendChild(mineText);
    if (docs.length) { mine.appendChild(attachmentLinks(docs)); }
    dropRetries();
    stream.appendChild(mine);
    input.value = "";
    attachments = [];
    attachList.replaceChildren();
    refreshAttachList();
    setRun(data.run_id);
    currentBubble();
    scroll();
  });

  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); form.requestSubmit(); }
  });

  // The endpoint waits (bounded) for the run's finalizer and answers the final status.
  stopButton.addEventListener("click", async () => {
    if (!runId) { return; }
    stopButton.disabled = true;
    stopButton.textContent = text.stopping;
    try {
      const response = await fetch(form.dataset.cancelUrlTemplate.replace("/0/", `/${runId}/`), {
        method: "POST", headers: { "X-CSRFToken": csrfToken() },
      });
      const data = await response.json().catch(() => ({}));
      if (!response.ok) { showError(data.message || text.unconfirmed); }
      else if (data.run && data.run.status !== "cancelling") { setRun(null); }
    } finally {
      stopButton.disabled = false;
      stopButton.textContent = text.stop;
    }
  });

  // "Try again": the server queues a new run for the same question; its answer streams below.
  stream.addEventListener("click", async (e) => {
    const button = e.target.closest(".chat-retry");
    if (!button || button.disabled) { return; }
    button.disabled = true;
    button.textContent = text.retrying;
    showError("");
    const response = await fetch(button.dataset.url, { method: "POST", headers: { "X-CSRFToken": csrfToken() } });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) {
      button.disabled = false;
      button.textContent = text.retry;
      showError(data.message || response.statusText);
      return;
    }
    dropRetries();
    setRun(data.run_id);
    currentBubble();
    scroll();
  });

  stream.addEventListener("click", async (e) => {
    const button = e.target.closest(".chat-older");
    if (!button || button.disabled) { return; }
    button.disabled = true;
    button.textContent = text.loading;
    try {
      const response = await fetch(button.dataset.url, { headers: { Accept: "application/json" } });
      const data = await response.json();
      if (!response.ok) { throw new Error(data.message || response.statusText); }
      const height = stream.scrollHeight;
      const template = document.createElement("template");
      template.innerHTML = data.html;  // rendered by the server's template (escaped, sanitized)
      button.replaceWith(template.content);
      stream.scrollTop += stream.scrollHeight - height;  // keep the reader's place
    } catch (error) {
      button.disabled = false;
      showError(error.message);
    }
  });

  const list = document.getElementById("chat-list");
  const heading = document.getElementById("chat-title");
  registerMutationHandler("chat.session", (event) => {
    for (const action of event.ui_actions || []) {
      if (action.list !== "chat-sessions") { continue; }
      const id = String(action.record_id);
      const item = list.querySelector(`li[data-record-id="${CSS.escape(id)}"]`);
      if (action.type === "remove") {
        if (item) { item.remove(); }
        if (id === String(config.session)) { window.location.assign(list.dataset.indexUrl || "/chat/"); }
      } else if (action.type === "upsert" && action.record) {
        const title = action.record.title || list.dataset.untitled;
        if (item) {
          item.querySelector("a").textContent = title;
        } else if (!document.getElementById("chat-search")?.value) {  // a filtered list stays filtered
          const li = document.createElement("li");
          li.dataset.recordId = id;
          const a = document.createElement("a");
          a.href = action.record.url;
          a.textContent = title;
          li.appendChild(a);
          list.querySelector("li.muted")?.remove();
          list.prepend(li);
        }
        if (id === String(config.session)) {
          heading.textContent = title;
          document.title = `${title} · Clapilot`;
        }
      }
    }
    return true;
  });

  setRun(runId);
  if (runId) { currentBubble(); }
  approvals.loadPending(() => {  // a waiting run's cards: its bubble is not "working"
    const b = currentBubble();
    if (b.dataset.fresh) { b.querySelector(".answer").textContent = ""; delete b.dataset.fresh; }
    b.classList.remove("streaming");
    return b;
  });
  connect();
  scroll();
}
