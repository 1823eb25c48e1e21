import factory

from apps.accounts.models import ServicePrincipal, User

PASSWORD = "correct horse battery staple"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        skip_postgeneration_save = True

    email = factory.Sequence(lambda n: f"person{n}@kanzlei.example")
    full_name = factory.Faker("name", locale="de_DE")
    language = "de"
    time_zone = "Europe/Berlin"
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def _save(obj, create, extracted, **kwargs):
        if create:
            obj.save()


class ServicePrincipalFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ServicePrincipal

    name = factory.Sequence(lambda n: f"Automation {n}")
    kind = ServicePrincipal.Kind.AUTOMATION


class ClientFactory(factory.django.DjangoModelFactory):
    """A Mandant row (no service call, no live event) for read and link tests."""

    class Meta:
        model = "clients.Client"

    name = factory.Sequence(lambda n: f"Mandant {n} GmbH")
    client_number = factory.Sequence(lambda n: f"{70000 + n}")
    kind = "company"


def device_client(user, device: str = "iPhone"):
    """A REST client signed in as `user` through a device token, as the mobile apps are."""
    from rest_framework.test import APIClient

    from apps.apikeys.services import issue_device_token

    _, token = issue_device_token(user, device)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client
