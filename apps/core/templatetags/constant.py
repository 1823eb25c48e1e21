"""`{% constant %}…{% endconstant %}`: a fragment that is the same on every page of a language,
rendered once per process, language and URL configuration.

Page chrome is full of tags whose answer never changes while the process runs: `{% translate %}`
of a literal, `{% static %}` and `{% url %}` of literals. Each costs tens of microseconds on every
page (looking up the catalog, the manifest, the URL patterns); together they were milliseconds of
every page. Inside the block only such tags, text and includes of templates made of them are
allowed — anything that reads the context (a variable, `{% if %}`, `{% csrf_token %}`) is a
`TemplateSyntaxError` when the template is compiled (an include: when it is first drawn), so a
fragment cannot go stale. The memo starts over when a setting changes (tests) or the URL
configuration is replaced."""

from __future__ import annotations

import itertools
from typing import Any

from django import template
from django.core.signals import setting_changed
from django.template.base import (
    FilterExpression,
    Node,
    NodeList,
    Parser,
    TextNode,
    Token,
    TokenType,
    Variable,
)
from django.template.context import Context
from django.template.defaulttags import CommentNode, LoadNode, URLNode
from django.template.loader_tags import IncludeNode
from django.templatetags.i18n import BlockTranslateNode, TranslateNode
from django.templatetags.static import StaticNode
from django.urls import get_resolver, get_urlconf
from django.utils.safestring import mark_safe
from django.utils.translation import get_language

register = template.Library()

_ids = itertools.count()
_memo: dict[tuple[Any, ...], str] = {}
_MEMO_SIZE = 4096


def _clear(**kwargs: Any) -> None:
    _memo.clear()


setting_changed.connect(_clear, dispatch_uid="clapilot.constant_fragments")


def _literal(expression: Any) -> bool:
    if not isinstance(expression, FilterExpression) or expression.filters:
        return False
    var = expression.var
    if isinstance(var, Variable):
        return var.literal is not None and var.lookups is None
    return isinstance(var, str)


def _problem(node: Node) -> str | None:
    """Why `node` may differ between two pages of one language (None: it cannot)."""
    if isinstance(node, TextNode | CommentNode | LoadNode):
        return None
    if isinstance(node, TranslateNode):
        ok = node.asvar is None and node.message_context is None and _literal(node.filter_expression)
    elif isinstance(node, StaticNode):
        ok = node.varname is None and _literal(node.path)
    elif isinstance(node, URLNode):
        ok = (
            node.asvar is None
            and _literal(node.view_name)
            and all(_literal(a) for a in node.args)
            and all(_literal(v) for v in node.kwargs.values())
        )
    elif isinstance(node, BlockTranslateNode):
        tokens = list(node.singular) + list(node.plural or [])
        ok = (
            not node.extra_context
            and node.countervar is None
            and node.asvar is None
            and node.message_context is None
            and all(t.token_type == TokenType.TEXT for t in tokens)
        )
    elif isinstance(node, IncludeNode):
        ok = _literal(node.template) and not node.extra_context  # its nodes: checked when drawn
    else:
        ok = False
    token = getattr(node, "token", None)
    return None if ok else f"{type(node).__name__} ({token.contents if token is not None else None!r})"


def _check(nodelist: NodeList, where: str) -> None:
    for node in nodelist:
        problem = _problem(node)
        if problem:
            raise template.TemplateSyntaxError(
                f"{{% constant %}} in {where}: {problem} can differ between pages; only text, "
                "translate/static/url of literals and includes of such templates are allowed"
            )


class ConstantNode(Node):
    def __init__(self, nodelist: NodeList, where: str) -> None:
        self.nodelist = nodelist
        self.key = next(_ids)  # not id(self): a template compiled anew must not find this one's text
        self.where = where
        self.checked_includes = False

    def render(self, context: Context) -> str:
        key = (self.key, get_language(), context.autoescape, id(get_resolver(get_urlconf())))
        text = _memo.get(key)
        if text is None:
            if not self.checked_includes:
                self._check_includes(self.nodelist, context)
                self.checked_includes = True
            text = self.nodelist.render(context)
            if len(_memo) >= _MEMO_SIZE:  # templates compiled per request (DEBUG) add keys
                _memo.clear()
            _memo[key] = text
        return mark_safe(text)  # noqa: S308 (rendered by the template engine, escaped there)

    def _check_includes(self, nodelist: NodeList, context: Context) -> None:
        for node in nodelist:
            if isinstance(node, IncludeNode):
                name = node.template.resolve(context)
                assert context.template is not None  # set while a template renders
                included = context.template.engine.get_template(name)
                _check(included.nodelist, name)
                self._check_includes(included.nodelist, context)


@register.tag
def constant(parser: Parser, token: Token) -> ConstantNode:
    nodelist = parser.parse(("endconstant",))
    parser.delete_first_token()
    where = getattr(parser.origin, "template_name", None) or "a template"
    _check(nodelist, where)
    return ConstantNode(nodelist, where)
