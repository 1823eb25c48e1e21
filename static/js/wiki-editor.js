/**
 * The wiki editor's preview: the text is rendered by the server (`wiki:preview`, the same
 * Markdown and sanitizer as the page) while typing (debounced) and on "Vorschau aktualisieren".
 * The answer is sanitized HTML; an older answer never overwrites a newer one.
 */
const button = document.getElementById("wiki-preview-refresh");
const target = document.getElementById("wiki-preview");
const error = document.getElementById("wiki-preview-error");
const source = button ? document.getElementById(button.dataset.source) : null;
const csrf = () => document.querySelector("[name=csrfmiddlewaretoken]")?.value || "";
let sequence = 0;
let timer = null;

async function refresh() {
  if (!button || !source || !target) return;
  const mine = ++sequence;
  const body = new FormData();
  body.append("body", source.value);
  try {
    const response = await fetch(button.dataset.previewUrl, {
      method: "POST",
      body,
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrf() },
    });
    if (!response.ok) throw new Error(String(response.status));
    const html = await response.text();
    if (mine !== sequence) return;
    target.innerHTML = html;
    error.hidden = true;
  } catch {
    if (mine === sequence) error.hidden = false;
  }
}

if (button && source) {
  button.addEventListener("click", refresh);
  source.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(refresh, 400);
  });
  refresh();
}
