"""Admin of the model layer: providers (key write-only) with their models, the "test connection"
button, the provider's model list to pick a model id from, and the capability probe as an admin
action. Saves and deletes, the provider page's model rows included, go through `apps.llm.services`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from apps.core.errors import DomainError
from apps.core.inputs import build
from apps.core.surfaces.admin_bases import ServiceAdmin, refused
from apps.llm import services
from apps.llm.connection import check_connection, offered_model_ids
from apps.llm.contracts import ModelSave, ProviderSave
from apps.llm.models import ModelConfig, Provider
from apps.llm.probe import enqueue_probe

# The id of the <datalist> the change forms render with the provider's models (templates/admin/llm).
MODEL_LIST_ID = "provider-model-ids"
# Narrow inputs: the provider page with its model rows must fit a 1,366 px screen.
MODEL_WIDGETS = {
    "model_id": forms.TextInput(attrs={"list": MODEL_LIST_ID, "size": 22, "autocomplete": "off"}),
    "display_name": forms.TextInput(attrs={"size": 16}),
    "context_window": forms.NumberInput(attrs={"class": "vIntegerField", "style": "width: 7em"}),
    "input_price_per_million": forms.NumberInput(attrs={"style": "width: 6em"}),
    "output_price_per_million": forms.NumberInput(attrs={"style": "width: 6em"}),
}


def _queue_probe(modeladmin: admin.ModelAdmin, request, model_ids: list[int]) -> None:
    enqueue_probe(model_ids)
    modeladmin.message_user(
        request,
        ngettext(
            "The capability probe of %(count)d model was queued; reload in a moment.",
            "The capability probe of %(count)d models was queued; reload in a moment.",
            len(model_ids),
        )
        % {"count": len(model_ids)},
        messages.SUCCESS if model_ids else messages.WARNING,
    )


class ProviderForm(forms.ModelForm):
    """The key is never sent back to the browser; an empty field keeps the stored key."""

    api_key = forms.CharField(
        label=_("API key"),
        required=False,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "new-password"}),
        help_text=_("Leave empty to keep the stored key."),
    )
    base_url = forms.URLField(
        label=_("base URL"),
        required=False,
        max_length=300,
        assume_scheme="https",
        widget=forms.URLInput(attrs={"size": 40}),
        help_text=_("Empty for api.openai.com; e.g. http://localhost:11434/v1 for Ollama."),
    )
    clear_api_key = forms.BooleanField(label=_("Remove the stored key"), required=False)

    class Meta:
        model = Provider
        fields = ["name", "kind", "base_url", "api_key", "enabled"]
        widgets = {"name": forms.TextInput(attrs={"size": 30})}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.initial["api_key"] = ""

    def clean_api_key(self) -> str:
        new = self.cleaned_data.get("api_key") or ""
        if not new and self.instance.pk:
            return Provider.objects.get(pk=self.instance.pk).api_key
        return new

    def save(self, commit: bool = True):
        if self.cleaned_data.get("clear_api_key"):
            self.instance.api_key = ""
        return super().save(commit)


def _models_context(provider: Provider | None) -> dict:
    """The provider's model ids for the <datalist>, or why they are missing (free text then)."""
    if provider is None or not provider.pk:
        return {"model_list_id": MODEL_LIST_ID, "provider_models": [], "models_note": ""}
    models, note = offered_model_ids(provider)
    return {"model_list_id": MODEL_LIST_ID, "provider_models": models, "models_note": note}


class ModelConfigForm(forms.ModelForm):
    class Meta:
        model = ModelConfig
        fields = [
            "provider",
            "model_id",
            "display_name",
            "context_window",
            "input_price_per_million",
            "output_price_per_million",
            "supports_tools",
            "supports_vision",
            "supports_reasoning",
            "probe_failed",
        ]
        widgets = MODEL_WIDGETS


class ModelInline(admin.TabularInline):
    """The provider's models at a glance: prices, vision and reasoning are on each model's own
    page (the change link), so the provider page fits a 1,366 px screen."""

    model = ModelConfig
    form = ModelConfigForm
    extra = 0
    show_change_link = True
    fields = ["model_id", "display_name", "context_window", "supports_tools", "probe_failed", "probe_error"]
    readonly_fields = ["probe_error"]


def _save_model(request, obj: ModelConfig) -> ModelConfig:
    values = {name: getattr(obj, name) for name in ModelSave.model_fields}
    return services.save_model(request.principal, build(ModelSave, **values), obj.pk)


@contextmanager
def _row_refusal(row: ModelConfig) -> Iterator[None]:
    """A refused model row, named on the provider page's form (the row's own inputs are rendered
    afresh): "<model id>: <field label>: <message>"."""
    try:
        yield
    except DomainError as exc:
        labels = {f.name: f.verbose_name for f in ModelConfig._meta.fields}
        parts = [f"{labels.get(name, name)}: {message}" for name, message in exc.field_errors.items()]
        raise refused(type(exc)(f"{row.model_id}: {'; '.join(parts) or exc.message}")) from None


@admin.register(Provider)
class ProviderAdmin(ServiceAdmin):
    form = ProviderForm
    list_display = ["name", "kind", "base_url", "enabled", "has_key"]
    list_filter = ["kind", "enabled"]
    inlines = [ModelInline]
    actions = ["probe_capability"]
    change_form_template = "admin/llm/provider/change_form.html"

    def service_save(self, request, obj, form, change):
        values = {name: getattr(obj, name) for name in ProviderSave.model_fields}
        return services.save_provider(request.principal, build(ProviderSave, **values), obj.pk)

    def service_delete(self, request, obj):
        services.delete_provider(request.principal, obj.pk)

    def save_formset(self, request, form, formset, change):
        """The model rows of the provider page, each through the service like the model page."""
        rows = formset.save(commit=False)  # writes nothing; notes the new, changed and deleted rows
        for row in formset.deleted_objects:
            with _row_refusal(row):
                services.delete_model(request.principal, row.pk)
        for row in rows:
            with _row_refusal(row):
                row.pk = _save_model(request, row).pk

    def get_urls(self):
        view = self.admin_site.admin_view(require_POST(self.test_connection_view))
        return [
            path("<int:object_id>/test-connection/", view, name="llm_provider_test_connection"),
            *super().get_urls(),
        ]

    def test_connection_view(self, request: HttpRequest, object_id: int) -> HttpResponseRedirect:
        """POST only (CSRF-checked by the middleware); the outcome comes back as a message."""
        provider = get_object_or_404(Provider, pk=object_id)
        if not self.has_change_permission(request, provider):
            raise PermissionDenied
        result = check_connection(provider)
        self.message_user(request, result.message, messages.SUCCESS if result.ok else messages.ERROR)
        return HttpResponseRedirect(reverse("admin:llm_provider_change", args=[provider.pk]))

    def change_view(self, request, object_id, form_url="", extra_context=None):
        provider = self.get_object(request, object_id)  # None: Django answers "does not exist"
        context = {**_models_context(provider), **(extra_context or {})}
        return super().change_view(request, object_id, form_url, extra_context=context)

    @admin.action(description=_("Probe capability of all its models"))
    def probe_capability(self, request, queryset) -> None:
        ids = list(ModelConfig.objects.filter(provider__in=queryset).values_list("pk", flat=True))
        _queue_probe(self, request, ids)

    @admin.display(boolean=True, description=_("key stored"))
    def has_key(self, obj: Provider) -> bool:
        return bool(obj.api_key)


@admin.register(ModelConfig)
class ModelConfigAdmin(ServiceAdmin):
    form = ModelConfigForm
    change_form_template = "admin/llm/modelconfig/change_form.html"
    list_display = [
        "model_id",
        "display_name",
        "provider",
        "context_window",
        "supports_tools",
        "probe_failed",
        "probed_at",
        "probe_error",
    ]
    list_filter = ["provider", "supports_tools", "probe_failed"]
    search_fields = ["model_id", "display_name"]
    readonly_fields = ["probed_at", "probe_error"]
    actions = ["probe_capability"]

    def service_save(self, request, obj, form, change):
        return _save_model(request, obj)

    def service_delete(self, request, obj):
        services.delete_model(request.principal, obj.pk)

    @admin.action(description=_("Probe capability"))
    def probe_capability(self, request, queryset) -> None:
        _queue_probe(self, request, list(queryset.values_list("pk", flat=True)))

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        # The provider of the model, or the one preselected by ?provider= (the provider page's link).
        obj = self.get_object(request, object_id) if object_id else None
        provider = obj.provider if obj else None
        wanted = request.GET.get("provider", "")
        if provider is None and wanted.isdigit():
            provider = Provider.objects.filter(pk=int(wanted)).first()
        context = {**_models_context(provider), **(extra_context or {})}
        return super().changeform_view(request, object_id, form_url, extra_context=context)
