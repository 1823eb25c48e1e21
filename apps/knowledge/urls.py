from django.urls import path

from apps.knowledge import views

app_name = "knowledge"

urlpatterns = [
    path("wissen/", views.index_page, name="index"),
    path("wissen/verwaltung/", views.manage_page, name="manage"),
    path("wissen/jobs/", views.jobs_partial, name="jobs"),
    path("wissen/status.json", views.status_json, name="status"),
    path("wissen/jobs/<int:job_id>/abbrechen/", views.cancel_job, name="cancel-job"),
    path("wissen/dateien/<int:file_id>/neu-indexieren/", views.reindex_file, name="reindex"),
    path("wissen/modell/", views.configure_model, name="model"),
    path("wissen/freigabe/", views.set_consent, name="consent"),
    path("wissen/freigabe/<int:rule_id>/zuruecksetzen/", views.clear_consent, name="clear-consent"),
]
