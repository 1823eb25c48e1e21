/**
 * An open wiki page learns about newer revisions live: when a `wiki.page.updated` event names
 * this page with a higher revision, a notice offers the new version (the text the reader is in
 * the middle of never jumps under them).
 */
const notice = document.getElementById("wiki-page-changed");

document.addEventListener("clapilot:refresh", (domEvent) => {
  const event = domEvent.detail && domEvent.detail.event;
  if (!notice || !event || event.topic !== "wiki.page.updated") return;
  const pageId = notice.dataset.pageId;
  const shown = Number(notice.dataset.revision);
  for (const action of event.ui_actions || []) {
    const record = action.record;
    if (action.type === "upsert" && record && String(record.id) === pageId && Number(record.revision) > shown) {
      notice.hidden = false;
      domEvent.preventDefault();
    }
  }
});
