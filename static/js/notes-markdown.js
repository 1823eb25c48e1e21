/**
 * "Markdown" in the note editor's toolbar: the page's text, written in Markdown (tables,
 * [[wiki links]], fenced code …), is rendered by the wiki's renderer on the server and replaces
 * the page's content as rich text. The usual autosave stores it (sanitized again on save).
 */
const button = document.getElementById("format-markdown");
const body = document.getElementById("page-body");
const error = document.getElementById("format-markdown-error");
const csrf = () => document.querySelector("[name=csrfmiddlewaretoken]")?.value || "";

async function format() {
  const data = new FormData();
  data.append("body", body.innerText);
  try {
    const response = await fetch(button.dataset.renderUrl, {
      method: "POST",
      body: data,
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrf() },
    });
    if (!response.ok) throw new Error(String(response.status));
    body.innerHTML = await response.text();
    error.hidden = true;
    body.dispatchEvent(new Event("input", { bubbles: true }));
  } catch {
    error.hidden = false;
  }
}

if (button && body) button.addEventListener("click", format);
