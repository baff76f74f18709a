from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsOptionalConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts_optional"
    verbose_name = _("Optional accounts")
