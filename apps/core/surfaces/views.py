from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.contrib.staticfiles import finders
from django.http import Http404, HttpResponse, JsonResponse
from django.template import loader
from django.utils.translation import gettext as _
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET


def _api_error(request, code: str, message: str, status: int):
    return JsonResponse({"code": code, "message": message, "details": None}, status=status)


def _error_page(request, template: str, status: int) -> HttpResponse:
    """A styled error page in the language the request activated. Rendered without the request:
    context processors read the session and the database, and an error page must still render
    when the database is the reason for the error (templates/errors/)."""
    return HttpResponse(loader.render_to_string(template, {"request_path": request.path}), status=status)


def page_not_found(request, exception=None):
    """`handler404`: an unknown URL under /api/ answers in the API's error shape (ErrorOut), so a
    client can branch on `code` there too; pages get the styled not-found page."""
    if request.path.startswith("/api/"):
        return _api_error(request, "not_found", _("Not found."), 404)
    return _error_page(request, "errors/404.html", 404)


def permission_denied(request, exception=None):
    """`handler403`: the API's error shape under /api/, else the styled page."""
    if request.path.startswith("/api/"):
        return _api_error(request, "forbidden", _("You are not allowed to do this."), 403)
    return _error_page(request, "errors/403.html", 403)


def server_error(request):
    """`handler500`: under /api/ the error shape (never a traceback or an HTML page)."""
    if request.path.startswith("/api/"):
        return _api_error(request, "server_error", _("An internal error occurred."), 500)
    return _error_page(request, "errors/500.html", 500)


@login_not_required
@require_GET
@cache_control(max_age=86400, public=True)
def favicon(request):
    """/favicon.ico for clients that ask for it by that name: the SVG icon base.html links."""
    path = finders.find("favicon.svg") or (settings.STATIC_ROOT / "favicon.svg")
    try:
        # A plain response of the small file: a FileResponse closes the request only when its
        # stream is consumed, which under the test client closes the database connection mid-test.
        with open(path, "rb") as icon:
            return HttpResponse(icon.read(), content_type="image/svg+xml")
    except OSError as missing:
        raise Http404 from missing
