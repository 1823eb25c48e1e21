/**
 * Live UI mutation events for open pages (server side: apps/mutations).
 *
 * One WebSocket per tab to /ws/mutations/. Every event carries `ui_actions` (highlight, upsert,
 * remove, focus, navigate, reload_topic), `refresh_topic` and `trigger_reload`. Pages register
 * handlers for the topics they render themselves:
 *
 *   import { registerMutationHandler } from "/static/js/mutations.js";
 *   registerMutationHandler("aufgaben.task", (event) => { ...render...; return true; });
 *
 * Without a handler the generic fallbacks apply: flash the element with `data-record-id`, remove
 * it on an explicit `remove`, and dispatch the DOM event `clapilot:refresh` ({detail: {topic}})
 * on `document` and on every element whose `data-refresh-topic` matches, so htmx fragments can
 * refetch with `hx-trigger="clapilot:refresh"`. `trigger_reload` reloads the page only when
 * nobody handled the event. The last event id is kept in sessionStorage; after a dropped
 * connection the socket reconnects with exponential backoff and replays what it missed.
 */

const STORAGE_KEY = "clapilot.mutations.after";
const SOCKET_PATH = "/ws/mutations/";
const MAX_BACKOFF_MS = 30000;
const PING_EVERY_MS = 25000;
const PONG_TIMEOUT_MS = 10000;
const FLASH_MS = 1600;
const CLOSE_UNAUTHENTICATED = 4401;
const REMEMBERED_IDS = 500;

// Shared through `window`: with hashed static names the page may load this module under two
// URLs (the hashed one from base.html, "./mutations.js" from a page script); both must use one
// socket and one handler registry.
const shared = (window.__clapilotMutations ??= { handlers: [], connection: null });
const handlers = shared.handlers;

/**
 * Render events of topics starting with `topicPrefix` ("aufgaben" matches "aufgaben.task.updated";
 * "" matches everything). Return `false` to leave the event to the generic fallbacks.
 * Returns a function that unregisters the handler.
 */
export function registerMutationHandler(topicPrefix, handler) {
  const entry = { prefix: String(topicPrefix), handler };
  handlers.push(entry);
  return () => {
    const index = handlers.indexOf(entry);
    if (index >= 0) handlers.splice(index, 1);
  };
}

/**
 * Open (once per tab) the live connection. `after`: the cursor the page was rendered at;
 * `onEvent(event)`: called for every event after the page handlers. Further calls only add
 * their `onEvent` and return the same controller.
 */
export function connectMutations({ onEvent, after, url } = {}) {
  if (shared.connection === null) shared.connection = new MutationConnection({ after, url });
  if (typeof onEvent === "function") shared.connection.listeners.add(onEvent);
  return shared.connection.controller;
}

class MutationConnection {
  constructor({ after, url }) {
    const start = toCursor(after) ?? readCursor();
    this.lastId = start;
    this.url = url || SOCKET_PATH;
    this.listeners = new Set();
    this.seen = [];
    this.attempt = 0;
    this.socket = null;
    this.retryTimer = null;
    this.pingTimer = null;
    this.pongTimer = null;
    this.stopped = false;
    if (start !== null) writeCursor(start);
    this.controller = {
      close: () => this.stop(),
      get lastId() {
        return shared.connection ? shared.connection.lastId : null;
      },
    };
    window.addEventListener("online", () => this.reconnectNow());
    window.addEventListener("pagehide", () => this.socket && this.socket.close(1000));
    this.open();
  }

  open() {
    if (this.stopped) return;
    const target = new URL(this.url, window.location.href);
    target.protocol = window.location.protocol === "https:" ? "wss:" : "ws:";
    if (this.lastId !== null) target.searchParams.set("after", String(this.lastId));
    const socket = new WebSocket(target.href);
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.attempt = 0;
      this.startPing();
    });
    socket.addEventListener("message", (message) => this.receive(message.data));
    socket.addEventListener("close", (close) => {
      this.stopPing();
      if (this.socket !== socket) return;
      this.socket = null;
      // Signed out: retrying cannot succeed until the user signs in again (a page load).
      if (close.code === CLOSE_UNAUTHENTICATED) this.stopped = true;
      this.scheduleReconnect();
    });
  }

  scheduleReconnect() {
    if (this.stopped || this.retryTimer !== null) return;
    const base = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** this.attempt);
    this.attempt += 1;
    const delay = base / 2 + Math.random() * (base / 2); // jitter: tabs do not reconnect in lockstep
    this.retryTimer = window.setTimeout(() => {
      this.retryTimer = null;
      this.open();
    }, delay);
  }

  reconnectNow() {
    if (this.stopped || this.socket !== null) return;
    window.clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.attempt = 0;
    this.open();
  }

  stop() {
    this.stopped = true;
    window.clearTimeout(this.retryTimer);
    this.stopPing();
    if (this.socket) this.socket.close(1000);
    this.socket = null;
  }

  // A socket can die silently (sleeping laptop, proxy): no pong in time means reconnect.
  startPing() {
    this.stopPing();
    this.pingTimer = window.setInterval(() => {
      const socket = this.socket;
      if (!socket || socket.readyState !== WebSocket.OPEN) return;
      socket.send(JSON.stringify({ type: "ping" }));
      window.clearTimeout(this.pongTimer);
      this.pongTimer = window.setTimeout(() => socket.close(4000), PONG_TIMEOUT_MS);
    }, PING_EVERY_MS);
  }

  stopPing() {
    window.clearInterval(this.pingTimer);
    window.clearTimeout(this.pongTimer);
    this.pingTimer = null;
    this.pongTimer = null;
  }

  receive(raw) {
    let message;
    try {
      message = JSON.parse(raw);
    } catch {
      return;
    }
    if (message.type === "pong") {
      window.clearTimeout(this.pongTimer);
    } else if (message.type === "resync") {
      // Too far behind (or the events expired): the page itself is stale.
      writeCursor(message.after);
      window.location.reload();
    } else if (message.type === "mutation" && message.event) {
      this.deliver(message.event, Boolean(message.replay));
    }
  }

  deliver(event, replay) {
    if (this.seen.includes(event.id)) return;
    this.seen.push(event.id);
    if (this.seen.length > REMEMBERED_IDS) this.seen.shift();
    if (this.lastId === null || event.id > this.lastId) {
      this.lastId = event.id;
      writeCursor(event.id);
    }
    applyEvent(event, { replay });
    for (const listener of this.listeners) {
      try {
        listener(event, { replay });
      } catch (error) {
        console.error("clapilot: mutation listener failed", error);
      }
    }
  }
}

/** Run page handlers, then the generic UI actions, refresh and reload fallbacks. */
export function applyEvent(event, { replay = false } = {}) {
  let handled = false;
  for (const { prefix, handler } of handlers.slice()) {
    if (!topicMatches(event.topic, prefix)) continue;
    try {
      if (handler(event) !== false) handled = true;
    } catch (error) {
      console.error("clapilot: mutation handler failed", error);
    }
  }
  for (const action of event.ui_actions || []) {
    try {
      applyAction(action, event, { handled, replay });
    } catch (error) {
      console.error("clapilot: UI action failed", action, error);
    }
  }
  let refreshed = false;
  if (event.refresh_topic) refreshed = emitRefresh(event.refresh_topic, event);
  if (event.trigger_reload && !handled && !refreshed) window.location.reload();
}

function applyAction(action, event, { handled, replay }) {
  switch (action && action.type) {
    case "highlight":
      flash(recordElement(action.list, action.record_id));
      break;
    case "upsert": {
      if (handled) break;
      const element = recordElement(action.list, action.record_id);
      if (element) flash(element);
      else if (action.list && listElement(action.list)) emitRefresh(event.topic, event);
      break;
    }
    case "remove": {
      if (handled) break;
      const element = recordElement(action.list, action.record_id);
      if (element) element.remove();
      break;
    }
    case "focus":
      // Focus and navigation follow what is happening now, never a replayed past or a hidden tab.
      if (!replay && document.visibilityState === "visible") focus(recordElement(action.list, action.record_id));
      break;
    case "navigate":
      if (!replay && document.visibilityState === "visible") navigate(action.url);
      break;
    case "reload_topic":
      if (action.topic) emitRefresh(action.topic, event);
      break;
    default:
      break; // unknown types belong to page handlers
  }
}

/**
 * Dispatch `clapilot:refresh` on matching `[data-refresh-topic]` elements and on `document`.
 * True when somebody took care of it: a matching element exists or a listener called
 * `preventDefault()`.
 */
function emitRefresh(topic, event) {
  let handled = false;
  for (const element of document.querySelectorAll("[data-refresh-topic]")) {
    if (topicMatches(topic, element.dataset.refreshTopic)) {
      element.dispatchEvent(new CustomEvent("clapilot:refresh", { detail: { topic, event } }));
      handled = true;
    }
  }
  const notice = new CustomEvent("clapilot:refresh", { detail: { topic, event }, bubbles: true, cancelable: true });
  if (!document.dispatchEvent(notice)) handled = true;
  return handled;
}

/*
 * A refresh must not get lost between two fetches of the same region. htmx queues a trigger that
 * arrives while the region is fetching on the old node, which the outerHTML swap then removes; a
 * trigger on a freshly swapped region that htmx has not wired yet finds no listener. Either way
 * the page would keep showing what it fetched before the change. Such a refresh is owed to the
 * region's id and asked for again once htmx has processed the region standing there.
 * (`htmx-internal-data` is where htmx 2 keeps `initHash` and the in-flight `xhr`; htmx checks
 * `initHash` itself for the same reason.)
 */
if (!shared.refreshesOwed) {
  const owed = (shared.refreshesOwed = new Map()); // region id → {node, detail}
  document.addEventListener("clapilot:refresh", (domEvent) => {
    const region = domEvent.target;
    if (!(region instanceof Element) || !region.id || !region.hasAttribute("hx-get")) return;
    const data = region["htmx-internal-data"];
    if (!data?.initHash || data.xhr) owed.set(region.id, { node: region, detail: domEvent.detail });
  }, true); // capture: the event does not bubble, but passes document on its way down
  document.addEventListener("htmx:afterProcessNode", (domEvent) => {
    const region = domEvent.target;
    const entry = region instanceof Element && region.id ? owed.get(region.id) : undefined;
    if (!entry) return;
    owed.delete(region.id);
    // Ask again when the region was replaced or is newly wired; not while the node that owes it
    // still stands (replaced) or still fetches (htmx replays its own queue then).
    const replaced = entry.node !== region;
    if (replaced ? entry.node.isConnected : region["htmx-internal-data"]?.xhr) return;
    region.dispatchEvent(new CustomEvent("clapilot:refresh", { detail: entry.detail }));
  });
}

function topicMatches(topic, prefix) {
  if (!prefix || prefix === "*") return true;
  if (typeof topic !== "string") return false;
  const stem = prefix.endsWith(".") ? prefix.slice(0, -1) : prefix;
  return topic === stem || topic.startsWith(`${stem}.`);
}

function listElement(list) {
  return document.querySelector(`[data-list="${CSS.escape(String(list))}"]`);
}

function recordElement(list, recordId) {
  if (recordId === undefined || recordId === null) return null;
  const record = `[data-record-id="${CSS.escape(String(recordId))}"]`;
  if (list) {
    const scoped = document.querySelector(`[data-list="${CSS.escape(String(list))}"] ${record}`);
    if (scoped) return scoped;
  }
  return document.querySelector(record);
}

function flash(element) {
  if (!element) return;
  element.classList.remove("flash-highlight");
  void element.offsetWidth; // restart the animation when the same record changes twice
  element.classList.add("flash-highlight");
  window.setTimeout(() => element.classList.remove("flash-highlight"), FLASH_MS);
}

function focus(element) {
  if (!element) return;
  if (!element.matches("a[href], button, input, select, textarea, [tabindex]")) element.setAttribute("tabindex", "-1");
  element.scrollIntoView({ block: "nearest", behavior: "smooth" });
  element.focus({ preventScroll: true });
  flash(element);
}

function navigate(url) {
  let target;
  try {
    target = new URL(url, window.location.href);
  } catch {
    return;
  }
  if (target.origin !== window.location.origin) {
    console.warn("clapilot: ignored navigation to another origin", url);
    return;
  }
  if (target.href !== window.location.href) window.location.assign(target.href);
}

function toCursor(value) {
  const number = typeof value === "number" ? value : Number.parseInt(String(value ?? ""), 10);
  return Number.isInteger(number) && number >= 0 ? number : null;
}

function readCursor() {
  try {
    return toCursor(window.sessionStorage.getItem(STORAGE_KEY));
  } catch {
    return null; // storage disabled: start live-only
  }
}

function writeCursor(id) {
  try {
    window.sessionStorage.setItem(STORAGE_KEY, String(id));
  } catch {
    /* storage disabled or full: the in-memory cursor still works */
  }
}
