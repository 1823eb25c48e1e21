from django.urls import path

from apps.calendar import api, fristen_views, views
from apps.calendar.reports import views as reports

app_name = "calendar"

urlpatterns = [
    path("kalender/", views.month_page, name="index"),
    path("kalender/woche/", views.week_page, name="week"),
    path("kalender/agenda/", views.agenda_page, name="agenda"),
    path("kalender/fristen/", fristen_views.deadlines_page, name="deadlines"),
    path("kalender/fristen/<int:event_id>/erledigt/", fristen_views.complete, name="deadline-complete"),
    path("kalender/fristen/<int:event_id>/streichen/", fristen_views.cancel, name="deadline-cancel"),
    path("kalender/fristen/<int:event_id>/wieder-oeffnen/", fristen_views.reopen, name="deadline-reopen"),
    path("kalender/fristen/<int:event_id>/verlauf/", fristen_views.history, name="deadline-history"),
    path("kalender/fristenbuch.<str:fmt>", fristen_views.export, name="fristenbuch-export"),
    path("kalender/berichte/", reports.index, name="reports"),
    path("kalender/berichte/<str:name>.<str:fmt>", reports.download, name="report"),
    path("kalender/neu/", views.create_page, name="create"),
    path("kalender/<int:event_id>/", views.detail_page, name="detail"),
    path("kalender/<int:event_id>/loeschen/", views.delete, name="delete"),
    path("kalender/<int:event_id>/verschieben/", views.move, name="move"),
    path("kalender/abo/neu/", views.feed_create, name="feed-create"),
    path("kalender/abo/<int:token_id>/widerrufen/", views.feed_revoke, name="feed-revoke"),
    path("kalender/feed/<str:token>.ics", api.FeedView.as_view(), name="feed"),
]
