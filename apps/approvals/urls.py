from django.urls import path

from apps.approvals import views

app_name = "approvals"

urlpatterns = [
    path("freigaben/", views.index, name="index"),
    path("freigaben/richtlinien/", views.policies, name="policies"),
    path("freigaben/<int:staged_id>/", views.card, name="card"),
    path("freigaben/<int:staged_id>/entscheiden/", views.decide, name="decide"),
    path("freigaben/chat/<int:session_id>/", views.chat_pending, name="chat-pending"),
    path("freigaben/dauerfreigaben/<int:standing_id>/widerrufen/", views.revoke, name="revoke"),
]
