"""`{% client_section section %}`: one contributed section of the client page (see
`apps.clients.page`), rendered within the page's context with the section's own values on top,
as `{% include %}` would (request, CSRF token and language stay available).
`{% client_section section section.actions %}` renders the section's actions template instead."""

from django import template

register = template.Library()


@register.simple_tag(takes_context=True)
def client_section(context, section, template_name=None):
    tpl = context.template.engine.get_template(template_name or section.template)
    with context.push(**section.context):
        return tpl.render(context)
