"""Forms of the wiki pages. They validate through the operations' input models
(`InputModelForm`); `apps.wiki.services` checks what only it can (a taken address, a stale edit)."""

from __future__ import annotations

from typing import Any, ClassVar

from django import forms
from django.utils.translation import gettext_lazy as _

from apps.core.surfaces.forms import InputModelForm
from apps.wiki.contracts import REASON_MAX, WikiPageCreate, WikiPageUpdate, WikiProposalReject
from apps.wiki.models import BODY_MAX, COMMENT_MAX, SLUG_MAX, TITLE_MAX


class PageForm(InputModelForm):
    input_model: ClassVar[type[WikiPageCreate] | type[WikiPageUpdate]] = WikiPageCreate
    DERIVED_FIELDS = "__all__"

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

    def model_values(self) -> dict[str, Any]:
        values = super().model_values()
        if "body" in self.cleaned_data:  # an empty text empties the page
            values["body"] = self.cleaned_data["body"] or ""
        return values


class PageEditForm(PageForm):
    """The editor of an existing page: no address; the revision it was opened at travels along."""

    input_model = WikiPageUpdate
    slug = None  # type: ignore[assignment]  # the address stays
    base_revision = forms.IntegerField(
        label=_("Revision you started from"), required=False, widget=forms.HiddenInput
    )

    def model_values(self) -> dict[str, Any]:
        values = super().model_values()
        values["base_revision"] = self.cleaned_data.get("base_revision")
        return values


class RejectForm(InputModelForm):
    """Reject a proposal: validated by `WikiProposalReject`, like the review queue's and the
    admin's rejections."""

    input_model = WikiProposalReject
    DERIVED_FIELDS = "__all__"
    validated: WikiProposalReject

    reason = forms.CharField(
        label=_("Reason"), max_length=REASON_MAX, widget=forms.Textarea(attrs={"rows": 2})
    )
