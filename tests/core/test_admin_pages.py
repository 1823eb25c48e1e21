"""Every admin screen opens for an administrator: its list, and its add form exactly where adding
is allowed (the shared admin bases decide)."""

import pytest
from django.contrib import admin
from django.urls import reverse

pytestmark = pytest.mark.django_db

MODELS = sorted(admin.site._registry, key=lambda m: m._meta.label)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m._meta.label)
def test_admin_changelist_and_add_render(client, admin_user, model):
    client.force_login(admin_user)
    opts = model._meta
    changelist = client.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist"))
    assert changelist.status_code == 200
    model_admin = admin.site._registry[model]
    add = client.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_add"))
    assert add.status_code == (200 if model_admin.has_add_permission(add.wsgi_request) else 403)
