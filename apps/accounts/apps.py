from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, NavEntry


class AccountsConfig(DomainApp):
    name = "apps.accounts"
    verbose_name = _("Accounts")
    navigation = [NavEntry("settings", _("Settings"), "settings", order=90)]
    extends = {"llm.personal_terms": ["apps.accounts.personal_terms.staff_terms"]}
