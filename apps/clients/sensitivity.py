"""Clients and cases marked "neutralize always" (`neutralize_always`): what the model layer's
gate needs to know about them.

- While a run or a model call is prepared (a tracking scope of `apps.llm.neutralize`), loading
  such a client, a case of it or a marked case demands neutralization (`post_init`, so every
  path that reads the row counts: tools, context providers, the client page's sections).
- `sensitive_refs` answers which `client:N` / `case:N` refs are marked (`llm.sensitive_refs`).
- `required_terms` names them (`llm.required_terms`): a request that mentions a marked client by
  name is neutralized even when nothing loaded the row (the user typed it).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from apps.clients.models import Case, Client
from apps.llm import neutralize


def marked_client_ids() -> frozenset[int]:
    return frozenset(Client.objects.filter(neutralize_always=True).values_list("id", flat=True))


def _marked_clients(demands: neutralize.Demands) -> frozenset[int]:
    return demands.cached("clients.marked", marked_client_ids)


def _case_marked(values: dict, demands: neutralize.Demands) -> bool:
    return bool(values.get("neutralize_always") or values.get("client_id") in _marked_clients(demands))


def connect() -> None:
    neutralize.demand_when_loaded(
        Client,
        "client",
        lambda values, _demands: values.get("neutralize_always"),
        dispatch_uid="clients.neutralize.client",
    )
    neutralize.demand_when_loaded(Case, "case", _case_marked, dispatch_uid="clients.neutralize.case")


def sensitive_refs(refs: Iterable[str]) -> Iterator[str]:
    refs = list(refs)
    client_ids = neutralize.ref_ids(refs, "client")
    if client_ids:
        for pk in Client.objects.filter(pk__in=client_ids, neutralize_always=True).values_list(
            "id", flat=True
        ):
            yield f"client:{pk}"
    case_ids = neutralize.ref_ids(refs, "case")
    if case_ids:
        marked = Case.objects.filter(pk__in=case_ids).filter(neutralize_always=True) | Case.objects.filter(
            pk__in=case_ids, client__neutralize_always=True
        )
        for pk in marked.values_list("id", flat=True).distinct():
            yield f"case:{pk}"


def required_terms() -> Iterator[str]:
    for name, number in Client.objects.filter(neutralize_always=True).values_list("name", "client_number"):
        yield name
        yield number
    marked = Case.objects.filter(neutralize_always=True) | Case.objects.filter(client__neutralize_always=True)
    yield from marked.values_list("reference", flat=True).distinct()
