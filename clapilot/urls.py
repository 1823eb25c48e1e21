from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from django.views.i18n import JavaScriptCatalog
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

admin.site.site_header = "Clapilot"
admin.site.site_title = "Clapilot Admin"
admin.site.index_title = "Control plane"

urlpatterns = [
    path("", include("apps.core.urls")),
    path("", include("apps.accounts.urls")),
    path("", include("apps.tools.urls")),
    path("", include("apps.mutations.urls")),
    path("", include("apps.apikeys.urls")),
    path("", include("apps.notifications.urls")),
    path("", include("apps.tasks.urls")),
    path("", include("apps.calendar.urls")),
    path("", include("apps.clients.urls")),
    path("", include("apps.agent.urls")),
    path("", include("apps.documents.urls")),
    path("", include("apps.knowledge.urls")),
    path("", include("apps.notes.urls")),
    path("", include("apps.wiki.urls")),
    path("", include("apps.widgets.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
]

if settings.DEBUG:
    from django.conf.urls.static import static

    urlpatterns += static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)
