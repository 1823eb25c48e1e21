"""Recovery checkpoints: a run that stops after producing output (streamed text or a completed
tool) leaves a closing assistant message whose metadata carries `recovery_checkpoint`. The next
run in the session injects it into the model's context and clears it when it completes."""

from __future__ import annotations

from django.utils.translation import gettext as _

from apps.agent import services
from apps.agent.models import ChatSession, Message, Run

KEY = "recovery_checkpoint"
PREVIEW_CHARS = 500
REQUEST_CHARS = 2000
PARTIAL_CHARS = 8000
MAX_TOOLS = 20


def write(
    run: Run,
    *,
    status: str,
    code: str,
    reason: str,
    partial_text: str,
    tools: list[dict],
) -> Message | None:
    """`tools`: completed calls of this run as {"name", "ok", "preview"}. Nothing to keep → None."""
    partial_text = (partial_text or "").strip()
    if not partial_text and not tools:
        return None
    request = (
        run.messages.filter(role=Message.Role.USER).order_by("-id").values_list("content", flat=True).first()
        or ""
    )
    names = list(dict.fromkeys(t["name"] for t in tools))[-MAX_TOOLS:]
    lines = [_("I had to stop: %(reason)s") % {"reason": reason}]
    if names:
        lines.append(_("Completed steps: %(tools)s.") % {"tools": ", ".join(names)})
    lines.append(_("Send a message to continue; I will pick up from this point."))
    summary = " ".join(lines)
    content = f"{partial_text}\n\n{summary}" if partial_text else summary
    checkpoint = {
        "pending": True,
        "run_id": run.pk,
        "code": code,
        "request": request[:REQUEST_CHARS],
        "completed_tools": names,
        "tool_previews": [
            {"name": t["name"], "ok": t.get("ok", True), "preview": (t.get("preview") or "")[:PREVIEW_CHARS]}
            for t in tools[-MAX_TOOLS:]
        ],
        "partial_text": partial_text[:PARTIAL_CHARS],
        "model": run.model_label,
    }
    return services.add_message(
        run, Message.Role.ASSISTANT, content, metadata={"closing": status, KEY: checkpoint}
    )


def shown_text(message: Message) -> str:
    """What the person sees of a message: a closing note shows only the partial answer (the
    stop's or failure's reason is shown beside it; the note's text is for the model)."""
    checkpoint = (message.metadata or {}).get(KEY)
    if isinstance(checkpoint, dict) and message.metadata.get("closing"):
        return str(checkpoint.get("partial_text") or "")
    return message.content


def pending(session: ChatSession) -> Message | None:
    return (
        session.messages.filter(role=Message.Role.ASSISTANT, **{f"metadata__{KEY}__pending": True})
        .order_by("-id")
        .first()
    )


def context_block(message: Message) -> str:
    cp = message.metadata[KEY]
    lines = [
        f"Recovery checkpoint: the previous run (#{cp['run_id']}) stopped early with {cp['code']}.",
        f"Its request was: {cp['request']}",
    ]
    if cp["completed_tools"]:
        lines.append("Tools it already completed (do not repeat writes): " + ", ".join(cp["completed_tools"]))
    for t in cp["tool_previews"]:
        lines.append(f"- {t['name']} ({'ok' if t['ok'] else 'failed'}): {t['preview']}")
    if cp["partial_text"]:
        lines.append("Its partial answer so far: " + cp["partial_text"])
    lines.append("Continue from this point if the user wants to go on.")
    return "\n".join(lines)


def consume(message: Message, run: Run) -> None:
    """Called when the recovering run completes: the checkpoint cannot pin later turns."""
    message.metadata[KEY].update(pending=False, consumed_by=run.pk)
    message.save(update_fields=["metadata"])
