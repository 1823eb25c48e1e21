"""`{% mutation_cursor %}`: the event id a freshly rendered page is current up to.

The live-update script starts its socket there, so events committed between rendering and
connecting are replayed, and older ones (already in the HTML) are not applied twice.
"""

from django import template

from apps.mutations.services import head_id

register = template.Library()


@register.simple_tag
def mutation_cursor() -> int:
    return head_id()
