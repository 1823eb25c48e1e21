"""Admin of the copilot: Mixture-of-Agents presets, chat sessions and runs read-only. Providers
and models are administered in the model layer (`apps.llm.admin`)."""

from __future__ import annotations

from django.contrib import admin

from apps.agent.models import ChatSession, InferenceUsage, Message, MoAPreset, Run, RunEvent


@admin.register(MoAPreset)
class MoAPresetAdmin(admin.ModelAdmin):
    """Mixture of Agents: offered as the virtual model `moa/<slug>` in every model picker."""

    list_display = ["slug", "name", "aggregator", "enabled"]
    list_filter = ["enabled"]
    filter_horizontal = ["reference_models"]
    prepopulated_fields = {"slug": ["name"]}


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


class RunEventInline(ReadOnlyInline):
    model = RunEvent
    fields = ["seq", "kind", "payload", "created_at"]
    readonly_fields = fields


class MessageInline(ReadOnlyInline):
    model = Message
    fields = ["role", "content", "tool_calls", "tool_call_id", "created_at"]
    readonly_fields = fields


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(ChatSession)
class ChatSessionAdmin(ReadOnlyAdmin):
    list_display = ["id", "title", "user", "updated_at"]
    search_fields = ["title", "user__email"]
    inlines = [MessageInline]


@admin.register(Run)
class RunAdmin(ReadOnlyAdmin):
    list_display = [
        "id",
        "session",
        "status",
        "kind",
        "model_label",
        "rounds",
        "cost",
        "error_code",
        "created_at",
    ]
    list_filter = ["status", "kind", "error_code"]
    inlines = [RunEventInline]


@admin.register(InferenceUsage)
class InferenceUsageAdmin(ReadOnlyAdmin):
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
