"""REST API of the Mandanten and Akten for mobile clients (`/api/v1/clients/…`, `/api/v1/cases/…`).
Same services, same records as the tools and pages; domain errors map to HTTP in `apps.core.api`."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.clients import services
from apps.clients.models import NAME_MAX, NOTES_MAX, SUBJECT_MAX, Case, Client
from apps.clients.records import case_record, client_record
from apps.core.api import page, principal, validated


class PageSerializer(serializers.Serializer):
    q = serializers.CharField(required=False, max_length=200)
    limit = serializers.IntegerField(required=False, min_value=1, max_value=services.MAX_PAGE, default=50)
    offset = serializers.IntegerField(required=False, min_value=0, default=0)


class ClientFilterSerializer(PageSerializer):
    status = serializers.CharField(max_length=10, required=False, help_text=", ".join(Client.Status.values))


class CaseFilterSerializer(PageSerializer):
    status = serializers.CharField(max_length=10, required=False, help_text=", ".join(Case.Status.values))
    client_id = serializers.IntegerField(required=False)


class ClientWriteSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=NAME_MAX)
    client_number = serializers.CharField(max_length=40)
    kind = serializers.CharField(max_length=10, required=False, help_text=", ".join(Client.Kind.values))
    status = serializers.CharField(max_length=10, required=False, help_text=", ".join(Client.Status.values))
    tax_number = serializers.CharField(max_length=40, required=False, allow_blank=True)
    email = serializers.CharField(max_length=254, required=False, allow_blank=True)
    phone = serializers.CharField(max_length=60, required=False, allow_blank=True)
    street = serializers.CharField(max_length=200, required=False, allow_blank=True)
    postal_code = serializers.CharField(max_length=20, required=False, allow_blank=True)
    city = serializers.CharField(max_length=120, required=False, allow_blank=True)
    country = serializers.CharField(max_length=80, required=False, allow_blank=True)
    responsible_id = serializers.IntegerField(required=False, allow_null=True)
    notes = serializers.CharField(max_length=NOTES_MAX, required=False, allow_blank=True)


class ClientPatchSerializer(ClientWriteSerializer):
    name = serializers.CharField(max_length=NAME_MAX, required=False)
    client_number = serializers.CharField(max_length=40, required=False)
    expected_version = serializers.IntegerField(required=False, min_value=1)


class CaseWriteSerializer(serializers.Serializer):
    client_id = serializers.IntegerField()
    reference = serializers.CharField(max_length=60)
    subject = serializers.CharField(max_length=SUBJECT_MAX)
    status = serializers.CharField(max_length=10, required=False, help_text=", ".join(Case.Status.values))
    responsible_id = serializers.IntegerField(required=False, allow_null=True)


class CasePatchSerializer(CaseWriteSerializer):
    client_id = serializers.IntegerField(required=False)
    reference = serializers.CharField(max_length=60, required=False)
    subject = serializers.CharField(max_length=SUBJECT_MAX, required=False)
    expected_version = serializers.IntegerField(required=False, min_value=1)


@extend_schema(tags=["clients"])
class ClientListView(APIView):
    @extend_schema(
        operation_id="clients_list",
        responses={200: OpenApiTypes.OBJECT},
        summary="Clients by name, with total",
        parameters=[ClientFilterSerializer],
    )
    def get(self, request):
        f = validated(ClientFilterSerializer, request.query_params)
        found, total = services.list_clients(
            principal(request),
            query=f.get("q"),
            status=f.get("status"),
            limit=f["limit"],
            offset=f["offset"],
        )
        return page("clients", [client_record(c) for c in found], total, f["limit"], f["offset"])

    @extend_schema(
        operation_id="clients_create",
        responses={201: OpenApiTypes.OBJECT},
        summary="Create a client",
        request=ClientWriteSerializer,
    )
    def post(self, request):
        data = validated(ClientWriteSerializer, request.data)
        client = services.create_client(principal(request), **data)
        return Response({"client": client_record(client)}, status=201)


@extend_schema(tags=["clients"])
class ClientDetailView(APIView):
    @extend_schema(
        operation_id="clients_retrieve", responses={200: OpenApiTypes.OBJECT}, summary="One client"
    )
    def get(self, request, client_id: int):
        return Response({"client": client_record(services.get_client(principal(request), client_id))})

    @extend_schema(
        operation_id="clients_partial_update",
        responses={200: OpenApiTypes.OBJECT},
        summary="Change some fields (partial); optional expected_version (409 version_conflict)",
        request=ClientPatchSerializer,
    )
    def patch(self, request, client_id: int):
        data = validated(ClientPatchSerializer, request.data)
        expected = data.pop("expected_version", None)
        client = services.update_client(principal(request), client_id, data, expected_version=expected)
        return Response({"client": client_record(client)})


@extend_schema(tags=["cases"])
class CaseListView(APIView):
    @extend_schema(
        operation_id="cases_list",
        responses={200: OpenApiTypes.OBJECT},
        summary="Cases, newest first, with total",
        parameters=[CaseFilterSerializer],
    )
    def get(self, request):
        f = validated(CaseFilterSerializer, request.query_params)
        found, total = services.list_cases(
            principal(request),
            client_id=f.get("client_id"),
            status=f.get("status"),
            query=f.get("q"),
            limit=f["limit"],
            offset=f["offset"],
        )
        return page("cases", [case_record(c) for c in found], total, f["limit"], f["offset"])

    @extend_schema(
        operation_id="cases_create",
        responses={201: OpenApiTypes.OBJECT},
        summary="Open a case for a client",
        request=CaseWriteSerializer,
    )
    def post(self, request):
        data = validated(CaseWriteSerializer, request.data)
        return Response({"case": case_record(services.create_case(principal(request), **data))}, status=201)


@extend_schema(tags=["cases"])
class CaseDetailView(APIView):
    @extend_schema(operation_id="cases_retrieve", responses={200: OpenApiTypes.OBJECT}, summary="One case")
    def get(self, request, case_id: int):
        return Response({"case": case_record(services.get_case(principal(request), case_id))})

    @extend_schema(
        operation_id="cases_partial_update",
        responses={200: OpenApiTypes.OBJECT},
        summary="Change some fields (partial); optional expected_version (409 version_conflict)",
        request=CasePatchSerializer,
    )
    def patch(self, request, case_id: int):
        data = validated(CasePatchSerializer, request.data)
        expected = data.pop("expected_version", None)
        case = services.update_case(principal(request), case_id, data, expected_version=expected)
        return Response({"case": case_record(case)})
