"""Admin of the copilot: Mixture-of-Agents presets; chat sessions and runs (deleted through the
services) and usage to look at. Providers and models are administered in the model layer
(`apps.llm.admin`)."""

from __future__ import annotations

from django.contrib import admin

from apps.agent import services
from apps.agent.contracts import MoAPresetSave
from apps.agent.models import ChatSession, InferenceUsage, Message, MoAPreset, Run, RunEvent
from apps.core.inputs import build
from apps.core.surfaces.admin_bases import NoAddMixin, NoChangeMixin, ReadOnlyInline, ServiceAdmin


@admin.register(MoAPreset)
class MoAPresetAdmin(ServiceAdmin):
    """Mixture of Agents: offered as the virtual model `moa/<slug>` in every model picker. Saved
    (its reference models included) and deleted through the service."""

    list_display = ["slug", "name", "aggregator", "enabled"]
    list_filter = ["enabled"]
    filter_horizontal = ["reference_models"]
    prepopulated_fields = {"slug": ["name"]}

    def service_save(self, request, obj, form, change):
        data = build(
            MoAPresetSave,
            slug=obj.slug,
            name=obj.name,
            aggregator_id=obj.aggregator_id,
            reference_model_ids=[m.pk for m in form.cleaned_data["reference_models"]],
            prompt=obj.prompt,
            enabled=obj.enabled,
        )
        return services.save_moa_preset(request.principal, data, obj.pk)

    def save_related(self, request, form, formsets, change):
        """The service set the reference models: the form's own many-to-many save is not run."""

    def service_delete(self, request, obj):
        services.delete_moa_preset(request.principal, obj.pk)


class RunEventInline(ReadOnlyInline):
    model = RunEvent
    fields = ["seq", "kind", "payload", "created_at"]
    readonly_fields = fields


class MessageInline(ReadOnlyInline):
    model = Message
    fields = ["role", "content", "tool_calls", "tool_call_id", "created_at"]
    readonly_fields = fields


class LookAndDeleteAdmin(NoAddMixin, NoChangeMixin, admin.ModelAdmin):
    """Sessions, runs and usage are written by the runtime; admins look, and may delete."""


@admin.register(ChatSession)
class ChatSessionAdmin(ServiceAdmin):
    """Admins look, and delete through the service: not while the copilot answers in the chat,
    and the owner's open chat list drops it live."""

    list_display = ["id", "title", "user", "service_principal", "updated_at"]
    search_fields = ["title", "user__email"]
    inlines = [MessageInline]

    def service_delete(self, request, obj) -> None:
        services.delete_session(request.principal, obj.pk, as_admin=True)


@admin.register(Run)
class RunAdmin(ServiceAdmin):
    """Runs are written by the runtime: admins look, and delete finished ones through the service."""

    list_display = [
        "id",
        "session",
        "status",
        "kind",
        "user",
        "service_principal",
        "model_label",
        "rounds",
        "cost",
        "error_code",
        "created_at",
    ]
    list_filter = ["status", "kind", "interactive", "error_code"]
    inlines = [RunEventInline]

    def service_delete(self, request, obj) -> None:
        services.delete_run_as_admin(obj.pk)


@admin.register(InferenceUsage)
class InferenceUsageAdmin(LookAndDeleteAdmin):
    list_display = [
        "id",
        "api_key",
        "model_label",
        "prompt_tokens",
        "completion_tokens",
        "cost",
        "ok",
        "created_at",
    ]
    list_filter = ["ok", "stream"]
