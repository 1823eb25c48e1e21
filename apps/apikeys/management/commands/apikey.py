"""`manage.py apikey create|revoke`: the operator's path to API keys (e.g. provisioning a coding
agent from a deploy script). Same service functions as the Developer page."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import translation

from apps.accounts.models import User
from apps.accounts.principal import InactivePrincipal, Principal
from apps.apikeys import errors, services
from apps.apikeys.models import Scope


class Command(BaseCommand):
    help = "Create or revoke instance API keys. The full key is printed once."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True, parser_class=CommandParser)
        create = sub.add_parser("create", help="Create a key acting as an administrator.")
        create.add_argument("--user", required=True, help="E-mail of the administrator the key acts as.")
        create.add_argument(
            "--scopes", required=True, help=f"Comma-separated, from: {', '.join(Scope.values)}."
        )
        create.add_argument("--expires-in", type=int, default=None, metavar="DAYS", help="Days until expiry.")
        create.add_argument("--name", default="", help="What the key is for (default: 'CLI key').")
        revoke = sub.add_parser("revoke", help="Revoke a key by its prefix.")
        revoke.add_argument("prefix", help="The key's public prefix, e.g. clp_k3j9x2ab.")

    def handle(self, *args, **options) -> None:
        # The command speaks English; the services' refusals it passes on must too, whatever
        # language the calling thread has active (none from a shell: the instance's German).
        with translation.override("en"):
            if options["action"] == "create":
                self._create(options)
            else:
                self._revoke(options["prefix"])

    def _create(self, options: dict) -> None:
        email = options["user"].strip()
        user = User.objects.filter(email__iexact=email).first()
        if user is None:
            raise CommandError(f"Unknown user: {email}")
        try:
            principal = Principal.for_user(user)
        except InactivePrincipal:
            raise CommandError(f"User {email} is deactivated.") from None
        if not user.is_admin:
            raise CommandError(f"User {email} is not an administrator; only administrators own API keys.")
        scopes = [s.strip() for s in options["scopes"].split(",") if s.strip()]
        try:
            key, plaintext = services.create_api_key(
                principal,
                name=options["name"] or "CLI key",
                scopes=scopes,
                expires_in_days=options["expires_in"],
            )
        except errors.InvalidScope as exc:
            raise CommandError(f"{exc.message} Known scopes: {', '.join(Scope.values)}.") from None
        except errors.ApiKeyError as exc:
            raise CommandError(exc.message) from None
        expiry = key.expires_at.isoformat(timespec="minutes") if key.expires_at else "never"
        self.stderr.write(
            f"Created API key {key.prefix} ({key.name}) for {user.email}; scopes: {', '.join(key.scopes)}; "
            f"expires: {expiry}. Shown only now:"
        )
        self.stdout.write(plaintext)

    def _revoke(self, prefix: str) -> None:
        try:
            key = services.revoke_api_key(None, prefix=prefix)
        except errors.KeyNotFound:
            raise CommandError(f"Unknown API key prefix: {prefix}") from None
        self.stdout.write(f"Revoked API key {key.prefix} ({key.name}).")
