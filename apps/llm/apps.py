from collections.abc import Callable

from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, ExtensionPoint


class LlmConfig(DomainApp):
    """Model providers, their models and the one way to call them (the neutralization gate
    included). Below every domain that asks a model something; imports only core.

    Extension point it owns:
    - ``"llm.personal_terms"``: callables ``() -> Iterable[(kind, literal)]`` naming the personal
      data an app holds (clients, staff …); the gate replaces them before a request leaves. See
      `apps.llm.neutralize.office_names`.
    - ``"llm.sensitive_refs"``: callables ``(refs) -> Iterable[ref]`` answering which refs
      ("document:12", "client:3") belong to a source marked "neutralize always".
    - ``"llm.required_terms"``: callables ``() -> Iterable[literal]`` naming such sources; a
      request that mentions one is neutralized even when the office switched it off.
    """

    name = "apps.llm"
    label = "llm"
    verbose_name = _("Models")
    extension_points = {
        "personal_terms": ExtensionPoint(Callable, "() -> Iterable[(kind, literal)]"),
        "sensitive_refs": ExtensionPoint(Callable, "(refs) -> Iterable[ref]"),
        "required_terms": ExtensionPoint(Callable, "() -> Iterable[literal]"),
    }
