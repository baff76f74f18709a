from django.apps import AppConfig


class AccountsOptionalConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts_optional"
    verbose_name = "Optional accounts"
