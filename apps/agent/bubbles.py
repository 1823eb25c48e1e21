"""The chat's bubbles as the page renders them from the stored messages and runs: a question, and
its answer with the tool steps (a failed step with its code and message), the records they
created or changed, and — for a stopped or failed run — its outcome in the reader's language
(the partial answer kept) with "Try again" on the chat's last answer."""

from __future__ import annotations

from apps.agent import outcomes, recovery
from apps.agent.labels import tool_label
from apps.agent.models import Message, Run
from apps.llm import markdown


def _attachments(message: Message) -> list[dict]:
    return [
        {"id": a["id"], "title": a.get("title") or a.get("filename") or f"#{a['id']}"}
        for a in message.metadata.get("attachments") or []
        if isinstance(a, dict) and isinstance(a.get("id"), int)
    ]


def _tool(message: Message) -> dict:
    name = message.metadata.get("name", "")
    ok = message.metadata.get("ok", True)
    # A call staged for a person waits (⏸) until decided; the decision rewrites its row.
    waiting = message.metadata.get("code") == "approval_required"
    state = "ok" if ok else "waiting" if waiting else "failed"
    return {
        "name": name,
        "label": tool_label(name),
        "ok": ok,
        "state": state,
        "error": outcomes.tool_error(message),
    }


class _Builder:
    def __init__(self, ended: dict[int, Run]) -> None:
        self.ended = ended
        self.bubbles: list[dict] = []
        self.tools: list[dict] = []
        self.links: list[dict] = []
        self.tools_run: int | None = None

    def answer(self, html: str, run_id: int | None) -> None:
        self.bubbles.append(
            {"role": "assistant", "html": html, "tools": self.tools, "links": self.links, "run_id": run_id}
        )
        self.tools, self.links, self.tools_run = [], [], None

    def flush(self) -> None:
        if self.tools:
            self.answer("", self.tools_run)

    def add(self, m: Message) -> None:
        if self.tools and m.run_id != self.tools_run:
            self.flush()  # another run's steps (a retry) get their own bubble
        if m.role == Message.Role.TOOL:
            self.tools.append(_tool(m))
            self.tools_run = m.run_id
            known = {link["url"] for link in self.links}
            self.links.extend(
                link
                for link in m.metadata.get("links") or []
                if isinstance(link, dict) and link.get("url") not in known
            )
        elif m.role == Message.Role.ASSISTANT and m.tool_calls and not m.content:
            self.tools_run = m.run_id
        elif m.role == Message.Role.ASSISTANT:
            self.answer(markdown.render(recovery.shown_text(m)), m.run_id)
        elif m.role == Message.Role.USER:
            self.flush()
            self.bubbles.append(
                {"role": "user", "text": m.content, "attachments": _attachments(m), "run_id": m.run_id}
            )

    def outcomes(self, last_run: int | None) -> list[dict]:
        """Each ended run's outcome on its last answer bubble, or a bubble of its own after its
        question when it answered nothing."""
        for run_id, run in self.ended.items():
            mine = [i for i, b in enumerate(self.bubbles) if b["run_id"] == run_id]
            answers = [i for i in mine if self.bubbles[i]["role"] == "assistant"]
            if answers:
                target = self.bubbles[answers[-1]]
            elif mine:
                target = {"role": "assistant", "html": "", "tools": [], "links": [], "run_id": run_id}
                self.bubbles.insert(mine[-1] + 1, target)
            else:
                continue  # its question is on an older page
            target["outcome"] = {**(outcomes.record(run) or {}), "retry": run_id == last_run}
        return self.bubbles


def build(messages: list[Message], last_run: int | None = None) -> list[dict]:
    """The bubbles of `messages` (in order). `last_run`: the chat's newest run when nothing is
    active; its outcome offers "Try again". One query for the runs that stopped or failed."""
    ids = {m.run_id for m in messages if m.run_id is not None}
    runs = Run.objects.filter(pk__in=ids, status__in=outcomes.RETRYABLE).order_by("pk") if ids else []
    ended = {run.pk: run for run in runs}
    builder = _Builder(ended)
    for m in messages:
        builder.add(m)
    builder.flush()
    return builder.outcomes(last_run)
