"""Admin of the model layer: providers (key write-only) with their models, and the capability
probe as an admin action."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from apps.llm.models import ModelConfig, Provider
from apps.llm.probe import enqueue_probe


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
        help_text=_("Empty for api.openai.com; e.g. http://localhost:11434/v1 for Ollama."),
    )
    clear_api_key = forms.BooleanField(label=_("Remove the stored key"), required=False)

    class Meta:
        model = Provider
        fields = ["name", "kind", "base_url", "api_key", "enabled"]

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


class ModelInline(admin.TabularInline):
    model = ModelConfig
    extra = 0
    fields = [
        "model_id",
        "display_name",
        "context_window",
        "input_price_per_million",
        "output_price_per_million",
        "supports_tools",
        "supports_vision",
        "supports_reasoning",
        "probe_failed",
        "probed_at",
        "probe_error",
    ]
    readonly_fields = ["probed_at", "probe_error"]


@admin.register(Provider)
class ProviderAdmin(admin.ModelAdmin):
    form = ProviderForm
    list_display = ["name", "kind", "base_url", "enabled", "has_key"]
    list_filter = ["kind", "enabled"]
    inlines = [ModelInline]
    actions = ["probe_capability"]

    @admin.action(description=_("Probe capability of all its models"))
    def probe_capability(self, request, queryset) -> None:
        ids = list(ModelConfig.objects.filter(provider__in=queryset).values_list("pk", flat=True))
        _queue_probe(self, request, ids)

    @admin.display(boolean=True, description=_("key stored"))
    def has_key(self, obj: Provider) -> bool:
        return bool(obj.api_key)


@admin.register(ModelConfig)
class ModelConfigAdmin(admin.ModelAdmin):
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

    @admin.action(description=_("Probe capability"))
    def probe_capability(self, request, queryset) -> None:
        _queue_probe(self, request, list(queryset.values_list("pk", flat=True)))
