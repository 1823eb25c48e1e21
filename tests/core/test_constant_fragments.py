"""`{% constant %}`: fragments the same on every page of a language, drawn once per process —
and refused wherever they could differ between two pages."""

import pytest
from django.template import Context, Engine, TemplateSyntaxError
from django.test import override_settings
from django.utils import translation

LIBRARIES = {
    "i18n": "django.templatetags.i18n",
    "static": "django.templatetags.static",
    "constant": "apps.core.templatetags.constant",
}


def engine(**templates: str) -> Engine:
    return Engine(loaders=[("django.template.loaders.locmem.Loader", templates)], libraries=LIBRARIES)


HEAD = "{% load i18n static constant %}"


@pytest.mark.parametrize(
    "body",
    [
        "{{ user }}",
        "{% if x %}a{% endif %}",
        "{% csrf_token %}",
        "{% translate name %}",
        "{% translate 'Tasks' as label %}",
        "{% static path %}",
        "{% url 'tasks:detail' task.pk %}",
        "{% blocktranslate %}Hello {{ name }}{% endblocktranslate %}",
        "{% include name %}",
        "{% include 'x.html' with a=1 %}",
        "{% translate 'Tasks'|upper %}",
    ],
)
def test_what_can_differ_between_pages_is_refused(body):
    with pytest.raises(TemplateSyntaxError, match="constant"):
        engine().from_string(f"{HEAD}{{% constant %}}<b>{body}</b>{{% endconstant %}}")


def test_an_included_template_is_checked_when_first_drawn():
    e = engine(
        **{"ok.html": "{% load i18n %}<p>{% translate 'Tasks' %}</p>", "bad.html": "<p>{{ user }}</p>"}
    )
    assert e.from_string(f"{HEAD}{{% constant %}}{{% include 'ok.html' %}}{{% endconstant %}}").render(
        Context()
    )
    page = e.from_string(f"{HEAD}{{% constant %}}{{% include 'bad.html' %}}{{% endconstant %}}")
    with pytest.raises(TemplateSyntaxError, match=r"bad\.html"):
        page.render(Context({"user": "anna"}))


def test_the_fragment_is_what_the_tags_draw_in_each_language():
    body = (
        "<a href=\"{% url 'tasks:list' %}\" title=\"{% translate 'Tasks' %}\">"
        "{% static 'css/app.css' %}</a>{% blocktranslate %}Tasks{% endblocktranslate %}"
    )
    plain = engine().from_string(HEAD + body)
    memo = engine().from_string(f"{HEAD}{{% constant %}}{body}{{% endconstant %}}")
    for language in ["de", "en", "it", "de"]:
        with translation.override(language):
            assert memo.render(Context()) == memo.render(Context()) == plain.render(Context())
    with translation.override("en"):
        assert 'title="Tasks"' in memo.render(Context())
    with translation.override("de"):
        assert 'title="Aufgaben"' in memo.render(Context())


def test_a_changed_setting_draws_anew():
    page = engine().from_string(f"{HEAD}{{% constant %}}{{% static 'css/app.css' %}}{{% endconstant %}}")
    before = page.render(Context())
    with override_settings(STATIC_URL="/elsewhere/"):
        inside = page.render(Context())
    assert inside.startswith("/elsewhere/") and not before.startswith("/elsewhere/")
    assert page.render(Context()) == before
