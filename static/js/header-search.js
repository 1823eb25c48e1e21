// The header search box: a drop-down of the top hits while typing (debounced; the server renders
// the hits, escaped, from /suche/vorschlaege/), arrow keys through the hits, Escape closes, and
// "/" anywhere focuses the box unless the person is typing into a field. Enter opens /suche/.
const DEBOUNCE_MS = 250;
const MIN_CHARS = 2;

const form = document.querySelector("[data-header-search]");
if (form) {
  const input = form.querySelector("input[name=q]");
  const panel = form.querySelector(".header-search-panel");
  const status = form.querySelector("#header-search-status");
  const url = form.dataset.suggestUrl;
  let timer = null;
  let inflight = null;
  let shown = "";

  const hits = () => [...panel.querySelectorAll("[data-search-hit]")];
  const close = () => {
    panel.hidden = true;
    form.classList.remove("open");
  };
  const open = () => {
    panel.hidden = false;
    form.classList.add("open");
  };

  async function load(words) {
    inflight?.abort();
    inflight = new AbortController();
    try {
      const response = await fetch(`${url}?${new URLSearchParams({ q: words })}`, {
        signal: inflight.signal,
        headers: { "X-Requested-With": "fetch" },
        credentials: "same-origin",
      });
      if (input.value.trim() !== words) return; // typed on meanwhile: a newer request follows
      panel.innerHTML = await response.text();
      shown = words;
      open();
      const n = hits().length - 1; // the last link is "all results"
      status.textContent =
        n > 0 && window.ngettext
          ? window.interpolate(window.ngettext("%s hit", "%s hits", n), [n])
          : n > 0
            ? `${n}`
            : window.gettext ? window.gettext("Nothing found") : "Nothing found";
    } catch (error) {
      if (error.name !== "AbortError") close();
    }
  }

  input.addEventListener("input", () => {
    clearTimeout(timer);
    const words = input.value.trim();
    if (words.length < MIN_CHARS) {
      inflight?.abort();
      shown = "";
      close();
      return;
    }
    timer = setTimeout(() => load(words), DEBOUNCE_MS);
  });

  // Back into the box with the mouse: the hits of the same words again (not on focus, so
  // Escape, which closes and focuses the box, stays closed).
  const reopen = () => shown && shown === input.value.trim() && open();
  input.addEventListener("click", reopen);

  form.addEventListener("keydown", (event) => {
    const links = hits();
    const at = links.indexOf(document.activeElement);
    if (event.key === "Escape") {
      if (!panel.hidden) {
        event.preventDefault();
        close();
        input.focus();
      }
    } else if (event.key === "ArrowDown" && event.target === input && panel.hidden && reopen()) {
      event.preventDefault();
    } else if (event.key === "ArrowDown" && !panel.hidden && links.length) {
      event.preventDefault();
      links[Math.min(at + 1, links.length - 1)].focus();
    } else if (event.key === "ArrowUp" && at >= 0) {
      event.preventDefault();
      (at === 0 ? input : links[at - 1]).focus();
    }
  });

  document.addEventListener("click", (event) => {
    if (!form.contains(event.target)) close();
  });
  form.addEventListener("focusout", (event) => {
    if (event.relatedTarget && !form.contains(event.relatedTarget)) close();
  });

  const typing = (el) =>
    el instanceof HTMLElement &&
    (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));
  document.addEventListener("keydown", (event) => {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
    if (typing(event.target) || event.defaultPrevented) return;
    event.preventDefault();
    input.focus();
    input.select();
  });
}
