"""Past chat turns and their summaries as a `context_search` source (`history:<message id>`),
visible to the person whose chats they are and to nobody else (no admin, no service principal).

Ranked by German full text over the person's most recent messages (`RECENT`, bounded so a long
chat life costs the same per search); `context_get("history:<id>")` returns the whole turn: the
question with the answers that followed it, or the stored summary. Declared for
`knowledge.sources` in apps.py.
"""

from __future__ import annotations

from django.contrib.postgres.search import SearchQuery, SearchRank, SearchVector
from django.db.models import Q, QuerySet
from django.db.models.functions import Left
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.agent.models import Message
from apps.core.records import text_window
from apps.knowledge.context import GET_MAX_CHARS, ContextHit, ContextQuery, ContextSource, snippet
from apps.knowledge.errors import KnowledgeNotFound
from apps.knowledge.search import text_query
from apps.knowledge.visibility import SHARED

RECENT = 1000
RANKED_CHARS = 2000  # words beyond this in a very long answer do not rank it (bounded cost)
TURN_MESSAGES = 6


def _own(principal: Principal) -> QuerySet[Message]:
    """The person's own conversational messages: questions, answers, stored summaries."""
    user_id = principal.resource_scope.user_id
    if user_id is None:
        return Message.objects.none()
    spoken = Q(role__in=[Message.Role.USER, Message.Role.ASSISTANT]) | Q(
        role=Message.Role.SYSTEM, metadata__has_key="summary"
    )
    return Message.objects.filter(spoken, session__user_id=user_id).exclude(content="")


def _title(message: Message) -> str:
    when = message.created_at.strftime("%Y-%m-%d")
    kind = _("Summary") if message.role == Message.Role.SYSTEM else message.get_role_display()
    return " › ".join(part for part in (message.session.title, when, str(kind)) if part)


def _search(q: ContextQuery) -> list[ContextHit]:
    if q.scope == SHARED or q.specialist:
        return []  # history is personal, and a specialist does not read the person's chats
    words = text_query(q.text)
    if not words:
        return []
    recent = _own(q.principal).order_by("-id").values("id")[:RECENT]
    any_words = SearchQuery(words, search_type="raw", config="german")
    vector = SearchVector(Left("content", RANKED_CHARS), config="german")
    ranked = (
        Message.objects.filter(pk__in=recent)
        .annotate(document=vector)
        .filter(document=any_words)
        .annotate(rank=SearchRank(vector, any_words))
        .select_related("session")
        .order_by("-rank", "-id")[: q.limit]
    )
    return [
        ContextHit(
            ref=f"history:{m.pk}",
            source="history",
            title=_title(m),
            snippet=snippet(m.content),
            meta={
                "session_id": m.session_id,
                "role": m.role,
                "scope": "personal",
                "at": m.created_at.isoformat(),
            },
        )
        for m in ranked
    ]


def _get(principal: Principal, source_id: str, options: dict) -> dict:
    own = _own(principal)
    message = own.select_related("session").filter(pk=int(source_id) if source_id.isdigit() else 0).first()
    if message is None or options.get("specialist"):
        raise KnowledgeNotFound(_("There is nothing with the id %(id)s.") % {"id": f"history:{source_id}"})
    turn = [message]
    if message.role == Message.Role.USER:  # the answers up to the next question
        following = own.filter(session_id=message.session_id, pk__gt=message.pk).order_by("id")[
            :TURN_MESSAGES
        ]
        for later in following:
            if later.role == Message.Role.USER:
                break
            turn.append(later)
    text = "\n\n".join(f"{m.get_role_display()}: {m.content}" for m in turn)
    return {
        "id": f"history:{message.pk}",
        "source": "history",
        "title": _title(message),
        "session": {"id": message.session_id, "title": message.session.title},
        "role": message.role,
        "scope": "personal",
        "at": message.created_at.isoformat(),
        **text_window(text, options, GET_MAX_CHARS),
    }


source = ContextSource(
    "history", search=_search, get=_get, description="Your past chat turns and their summaries"
)
