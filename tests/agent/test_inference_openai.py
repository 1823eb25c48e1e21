"""The inference passthrough as OpenAI-compatible clients use it: the real `openai` client against
the running endpoint (pytest-django's live server), the scripted fake model server as provider.

Function calling passes through (tools and tool_choice to the provider, its tool calls back to
the client, streamed too) and nothing runs server-side; `moa/<slug>` presets are models; an
unknown model is OpenAI's 404 `model_not_found` with OpenAI's error body."""

from __future__ import annotations

import json

import openai
import pytest

from apps.accounts.principal import Principal
from apps.agent.models import InferenceUsage, Run
from apps.apikeys.services import create_api_key
from apps.clients.models import Client
from apps.llm.models import ModelConfig
from apps.mutations.models import MutationEvent
from apps.tasks.models import Task
from apps.tools.models import ToolExecution

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather of a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
# A name the server's own catalog has: the passthrough must still only hand the call back.
SERVER_TOOL = {
    "type": "function",
    "function": {
        "name": "aufgaben_create_task",
        "description": "Create a task.",
        "parameters": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]},
    },
}


@pytest.fixture
def api(live_server, admin_user) -> openai.OpenAI:
    _, key = create_api_key(Principal.for_user(admin_user), name="Integr", scopes=["inference:execute"])
    return openai.OpenAI(base_url=f"{live_server.url}/api/v1/inference", api_key=key, max_retries=0)


def _nothing_ran_here() -> bool:
    return not (ToolExecution.objects.exists() or Task.objects.exists() or MutationEvent.objects.exists())


def _collect(stream) -> tuple[str, dict[int, dict], str | None, list]:
    """Text, tool calls by index (OpenAI's delta protocol), finish reason, usage of a stream."""
    text, calls, finish, usage = "", {}, None, []
    for chunk in stream:
        if chunk.usage is not None:
            usage.append(chunk.usage)
        for choice in chunk.choices:
            text += choice.delta.content or ""
            for tc in choice.delta.tool_calls or []:
                slot = calls.setdefault(tc.index, {"id": "", "name": "", "arguments": ""})
                slot["id"] = tc.id or slot["id"]
                if tc.function is not None:
                    slot["name"] += tc.function.name or ""
                    slot["arguments"] += tc.function.arguments or ""
            finish = choice.finish_reason or finish
    return text, calls, finish, usage


# --- (a) function calling -----------------------------------------------------------------------
def test_tools_pass_through_and_tool_calls_come_back(api, model, fake_openai):
    fake_openai.tool_calls(("aufgaben_create_task", {"title": "Nicht hier anlegen"}))
    question = [{"role": "user", "content": "Leg eine Aufgabe an"}]
    first = api.chat.completions.create(
        model="fake-model", messages=question, tools=[SERVER_TOOL, WEATHER], tool_choice="auto"
    )

    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls"
    (call,) = choice.message.tool_calls
    assert call.type == "function" and call.function.name == "aufgaben_create_task"
    assert json.loads(call.function.arguments) == {"title": "Nicht hier anlegen"}
    sent = fake_openai.chat_requests[0]
    assert sent["tools"] == [SERVER_TOOL, WEATHER] and sent["tool_choice"] == "auto"
    assert _nothing_ran_here() and not Run.objects.exists()

    # the client ran the tool itself and sends the result back: an ordinary tool turn
    fake_openai.reply("Erledigt.")
    second = api.chat.completions.create(
        model="fake-model",
        tools=[SERVER_TOOL],
        tool_choice={"type": "function", "function": {"name": "aufgaben_create_task"}},
        messages=[
            *question,
            choice.message.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": call.id, "content": '{"ok": true}'},
        ],
    )
    assert second.choices[0].message.content == "Erledigt."
    turn = fake_openai.chat_requests[1]
    assert turn["tool_choice"] == {"type": "function", "function": {"name": "aufgaben_create_task"}}
    assistant, tool = turn["messages"][-2:]
    assert assistant["tool_calls"][0]["id"] == call.id and assistant["tool_calls"][0]["function"]["name"]
    assert tool == {"role": "tool", "tool_call_id": call.id, "content": '{"ok": true}'}
    assert _nothing_ran_here()
    assert InferenceUsage.objects.count() == 2


def test_streamed_tool_calls_arrive_as_openai_deltas(api, model, fake_openai):
    fake_openai.tool_calls(("get_weather", {"city": "Passau"}), ("get_weather", {"city": "Linz"}))
    stream = api.chat.completions.create(
        model="fake-model",
        messages=[{"role": "user", "content": "Wetter?"}],
        tools=[WEATHER],
        stream=True,
    )
    text, calls, finish, usage = _collect(stream)

    assert finish == "tool_calls" and text == ""
    assert [c["name"] for c in calls.values()] == ["get_weather", "get_weather"]
    assert [json.loads(c["arguments"]) for c in calls.values()] == [{"city": "Passau"}, {"city": "Linz"}]
    assert all(c["id"] for c in calls.values()) and len({c["id"] for c in calls.values()}) == 2
    assert usage and usage[-1].total_tokens == 15
    assert fake_openai.chat_requests[0]["tools"] == [WEATHER] and _nothing_ran_here()


def test_tool_turns_still_pass_the_neutralization_gate(api, model, fake_openai):
    Client.objects.create(name="Theodora Quellmalz", kind="person", client_number="K-1")
    fake_openai.forbid("Quellmalz")
    fake_openai.tool_calls(("get_weather", {"city": "Wohnort von [MANDANT_1]"}))
    answer = api.chat.completions.create(
        model="fake-model",
        tools=[WEATHER],
        messages=[
            {"role": "user", "content": "Wetter bei Theodora Quellmalz?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_0",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Theodora Quellmalz"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_0", "content": "Kein Ort für Theodora Quellmalz"},
        ],
    )
    assert fake_openai.violations == []  # the name reached the provider nowhere
    (call,) = answer.choices[0].message.tool_calls
    assert json.loads(call.function.arguments) == {"city": "Wohnort von Theodora Quellmalz"}


def test_tool_definitions_pass_the_gate_and_arguments_come_back_restored(api, model, fake_openai):
    Client.objects.create(name="Theodora Quellmalz", kind="person", client_number="K-1")
    fake_openai.forbid("Quellmalz")
    lookup = {
        "type": "function",
        "function": {
            "name": "open_file",
            "description": "Öffnet die Akte von Theodora Quellmalz.",
            "parameters": {
                "type": "object",
                "properties": {"who": {"type": "string", "enum": ["Theodora Quellmalz", "andere"]}},
            },
        },
    }
    fake_openai.tool_calls(("open_file", {"who": "[MANDANT_1]"}))
    answer = api.chat.completions.create(
        model="fake-model", tools=[lookup], messages=[{"role": "user", "content": "Akte öffnen"}]
    )
    assert fake_openai.violations == []
    sent = fake_openai.chat_requests[0]["tools"][0]["function"]
    assert sent["name"] == "open_file" and "[MANDANT_1]" in sent["description"]
    assert sent["parameters"]["properties"]["who"]["enum"] == ["[MANDANT_1]", "andere"]
    (call,) = answer.choices[0].message.tool_calls
    assert json.loads(call.function.arguments) == {"who": "Theodora Quellmalz"}


def test_legacy_functions_are_refused_with_a_pointer_to_tools(api, model, fake_openai):
    with pytest.raises(openai.BadRequestError) as refused:
        api.chat.completions.create(
            model="fake-model",
            messages=[{"role": "user", "content": "x"}],
            extra_body={"functions": [WEATHER["function"]]},
        )
    assert refused.value.code == "tools_not_supported" and refused.value.param == "functions"
    assert fake_openai.chat_requests == []


def test_a_model_without_tool_support_refuses_tools(api, model, fake_openai):
    ModelConfig.objects.filter(pk=model.pk).update(supports_tools=False)
    with pytest.raises(openai.BadRequestError) as refused:
        api.chat.completions.create(
            model="fake-model", messages=[{"role": "user", "content": "x"}], tools=[WEATHER]
        )
    assert refused.value.code == "tools_not_supported" and refused.value.param == "tools"
    assert fake_openai.chat_requests == []


# --- (b) Mixture-of-Agents presets are models --------------------------------------------------
def test_moa_presets_are_listed_and_answer(api, preset, fake_openai):
    assert "moa/rat" in [m.id for m in api.models.list().data]
    fake_openai.reply("Antwort A", model="ref-a", usage=(100, 1)).reply(
        "Antwort B", model="ref-b", usage=(100, 1)
    )
    fake_openai.reply("Endgültige Antwort", model="agg", usage=(50, 7))

    answer = api.chat.completions.create(model="moa/rat", messages=[{"role": "user", "content": "Was tun?"}])

    assert answer.model == "moa/rat" and answer.choices[0].message.content == "Endgültige Antwort"
    for ref in ("ref-a", "ref-b"):
        (sent,) = fake_openai.requests_for(ref)
        assert "tools" not in sent and sent["messages"][-1] == {"role": "user", "content": "Was tun?"}
    (aggregated,) = fake_openai.requests_for("agg")
    assert aggregated["messages"][-1]["content"].startswith("Fasse zusammen.")
    assert "Antwort A" in aggregated["messages"][-1]["content"]
    assert answer.usage.prompt_tokens == 250 and answer.usage.completion_tokens == 9
    rows = InferenceUsage.objects.order_by("model_label")
    assert sorted(r.model_config.model_id for r in rows) == ["agg", "ref-a", "ref-b"]
    assert all(r.model_label.startswith("moa/rat") for r in rows) and not Run.objects.exists()


def test_moa_streams_and_passes_tools_to_the_aggregator(api, preset, fake_openai):
    fake_openai.reply("A", model="ref-a").reply("B", model="ref-b")
    fake_openai.tool_calls(("get_weather", {"city": "Wels"}), model="agg")
    stream = api.chat.completions.create(
        model="moa/rat", messages=[{"role": "user", "content": "Wetter?"}], tools=[WEATHER], stream=True
    )
    _, calls, finish, _ = _collect(stream)

    assert finish == "tool_calls" and [c["name"] for c in calls.values()] == ["get_weather"]
    assert fake_openai.requests_for("agg")[0]["tools"] == [WEATHER]
    assert all("tools" not in fake_openai.requests_for(ref)[0] for ref in ("ref-a", "ref-b"))


# --- (c) an unknown model is OpenAI's 404 --------------------------------------------------------
@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("name", ["gpt-gibtsnicht", "moa/gibtsnicht"])
def test_unknown_model_is_404_model_not_found(api, model, fake_openai, name, stream):
    with pytest.raises(openai.NotFoundError) as missing:
        api.chat.completions.create(model=name, messages=[{"role": "user", "content": "x"}], stream=stream)

    error = missing.value
    assert (error.status_code, error.code, error.type, error.param) == (
        404,
        "model_not_found",
        "invalid_request_error",
        "model",
    )
    body = error.response.json()
    assert set(body["error"]) == {"message", "type", "param", "code"}
    assert body["error"]["message"] == f"Das Modell „{name}“ gibt es nicht." == body["message"]  # German
    assert fake_openai.chat_requests == []
