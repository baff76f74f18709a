"""Words of Django's own admin that its Bengali catalogue leaves in English.

Django 5.2's Bengali catalogue lacks the newer admin strings (the sidebar, the
theme switch, the check boxes' labels, "View site"), the auth app's name and
the units of "how long ago" (``timesince``, which the dashboard shows). They are
marked here so ``make messages`` keeps them in locale/bn, and the project's
catalogue is read before Django's (LOCALE_PATHS), so its translations are the
ones shown. Each msgid is Django's own, letter for letter:
tests/moderation/test_admin_language.py checks that Django still has it.
The site never imports this module: xgettext reads it, and that test checks it.
"""

from django.utils.translation import gettext_noop, ngettext_lazy

DJANGO_WORDS = (
    gettext_noop("View site"),
    gettext_noop("Start typing to filter…"),
    gettext_noop("Filter navigation items"),
    gettext_noop("Recent actions"),
    gettext_noop("Toggle navigation"),
    gettext_noop("View selected %(model)s"),
    gettext_noop("Add link"),
    gettext_noop("Breadcrumbs"),
    gettext_noop("Change or view list link"),
    gettext_noop("Model name"),
    gettext_noop("Select all objects on this page for an action"),
    gettext_noop("Select this object for an action - {}"),
    gettext_noop("Show counts"),
    gettext_noop("Hide counts"),
    gettext_noop("Sidebar"),
    gettext_noop("Skip to main content"),
    gettext_noop("Toggle theme (current theme: auto)"),
    gettext_noop("Toggle theme (current theme: light)"),
    gettext_noop("Toggle theme (current theme: dark)"),
    gettext_noop("View %s"),
    gettext_noop("Authentication and Authorization"),
)

DJANGO_PLURALS = (
    ngettext_lazy("%(num)d year", "%(num)d years", "num"),
    ngettext_lazy("%(num)d month", "%(num)d months", "num"),
    ngettext_lazy("%(num)d week", "%(num)d weeks", "num"),
    ngettext_lazy("%(num)d day", "%(num)d days", "num"),
    ngettext_lazy("%(num)d hour", "%(num)d hours", "num"),
    ngettext_lazy("%(num)d minute", "%(num)d minutes", "num"),
)
