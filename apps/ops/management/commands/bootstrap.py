"""First-start setup, safe to run on every start: schedules, the model provider from the
environment, first admin, demo office. Here, in the top layer, because it calls several domains
in an order that matters (the demo office needs the admin)."""

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from apps.accounts.services import ensure_admin
from apps.core.services import ensure_periodic_tasks
from apps.llm.setup import ensure_env_provider
from apps.ops import demo


class Command(BaseCommand):
    help = "Create the periodic jobs, the first admin account and (once) the demo office."

    def handle(self, *args: Any, **options: Any) -> None:
        ensure_periodic_tasks()
        if ensure_env_provider() is not None:
            self.stdout.write("Model provider created from OPENAI_API_KEY / OPENAI_BASE_URL.")
        admin, password = ensure_admin(settings.CLAPILOT_ADMIN_EMAIL, settings.CLAPILOT_ADMIN_PASSWORD)
        office = demo.load_once(admin, password) if settings.CLAPILOT_DEMO_DATA else None
        if password:
            self.stdout.write(self.style.SUCCESS("Admin account created:"))
            self.stdout.write(f"    e-mail:   {admin.email}")
            self.stdout.write(f"    password: {password}   (shown only now)")
        else:
            self.stdout.write(f"Admin account: {admin.email} (password unchanged)")
        if office is not None:
            names = ", ".join(u.email for u in office.users.values())
            self.stdout.write(
                f"Demo office loaded. Staff logins ({'same password' if password else 'no password'}): {names}"
            )
