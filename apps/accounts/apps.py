from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, NavEntry


class AccountsConfig(DomainApp):
    name = "apps.accounts"
    verbose_name = _("Accounts")
    navigation = [NavEntry("settings", _("Settings"), "settings", order=90)]
    extends = {"llm.personal_terms": ["apps.accounts.personal_terms.staff_terms"]}

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in, user_login_failed

        from apps.accounts import lockout

        user_login_failed.connect(lockout.on_login_failed, dispatch_uid="clapilot.lockout.failed")
        user_logged_in.connect(lockout.on_logged_in, dispatch_uid="clapilot.lockout.logged_in")
