from django.apps import AppConfig
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from games import registry

from . import checks  # noqa: F401 - importing it registers the system checks


class RoomsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "rooms"
    verbose_name = _("Rooms and games")

    def ready(self):
        # Load the games now, once, rather than in whichever request first asks.
        registry.declarations()
        # Games declared outside games/registry.py's list (README "Adding a game").
        for module_name in settings.KHELAGHOR_EXTRA_GAMES:
            registry.register(module_name)
