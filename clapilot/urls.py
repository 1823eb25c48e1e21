from django.conf import settings
from django.contrib import admin
from django.contrib.auth.decorators import login_not_required
from django.urls import path
from django.utils.translation import gettext_lazy as _
from django.views.i18n import JavaScriptCatalog, set_language
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from apps.core import plugins

admin.site.site_header = "Clapilot"
admin.site.site_title = _("Clapilot Admin")
admin.site.index_title = _("Control plane")

# Under /api/ an unknown URL, a refusal or a crash answers in the API's error shape (ErrorOut);
# pages get the styled, localized templates/errors/ pages.
handler403 = "apps.core.surfaces.views.permission_denied"
handler404 = "apps.core.surfaces.views.page_not_found"
handler500 = "apps.core.surfaces.views.server_error"

urlpatterns = [
    # Each app brings its own routes (DomainApp.urls, and DomainApp.api_urls under api/v1/);
    # the order follows INSTALLED_APPS.
    *plugins.app_routes(),
    # Public (pages are closed by default, apps.core.surfaces.closed): the signed-out pages need both.
    path("i18n/setlang/", login_not_required(set_language), name="set_language"),
    path("jsi18n/", login_not_required(JavaScriptCatalog.as_view()), name="javascript-catalog"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves its init script from its own URL: no inline script (strict CSP).
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
]

if settings.DEBUG:
    from django.conf.urls.static import static

    urlpatterns += static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)
