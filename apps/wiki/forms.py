"""Forms of the wiki pages. They parse input; `apps.wiki.services` validates and writes."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from apps.wiki.models import BODY_MAX, COMMENT_MAX, SLUG_MAX, TITLE_MAX


class PageForm(forms.Form):
    title = forms.CharField(label=_("Title"), max_length=TITLE_MAX)
    slug = forms.CharField(
        label=_("Address"),
        max_length=SLUG_MAX,
        required=False,
        help_text=_("Part of the link, e.g. fristenkontrolle. Leave empty to derive it from the title."),
    )
    body = forms.CharField(
        label=_("Text (Markdown)"),
        max_length=BODY_MAX,
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 22, "class": "wiki-editor"}),
        help_text=_(
            "# Heading, **bold**, *italic*, - lists, 1. numbered lists, `code`, [link](https://…), "
            "[[Page]] or [[Page|text]] for a wiki page, | tables | with a |---| line, ``` for code blocks"
        ),
    )
    comment = forms.CharField(label=_("What changed?"), max_length=COMMENT_MAX, required=False)
    base_revision = forms.IntegerField(
        label=_("Revision you started from"), required=False, widget=forms.HiddenInput
    )

    def __init__(self, *args, editing: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        if editing:
            del self.fields["slug"]


class RejectForm(forms.Form):
    reason = forms.CharField(label=_("Reason"), max_length=2000, widget=forms.Textarea(attrs={"rows": 2}))
