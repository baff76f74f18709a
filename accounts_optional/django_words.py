"""Words of Django's auth forms that its Bengali catalogue leaves in English.

A Bengali sign-up page showed the password rules and their errors, the
mismatch of the two passwords and the failed sign-in in English (Django 5.2's
Bengali catalogue has no translation for them), and one of them half Bengali
("the সদস্যনাম"). They are marked here so ``make messages`` keeps them in
locale/bn; the project's catalogue is read before Django's (LOCALE_PATHS). Each
msgid is Django's own, letter for letter (its typographic apostrophes too):
tests/accounts/test_account_language.py checks that Django still has it. The
site never imports this module: xgettext reads it.
"""

from django.utils.translation import gettext_noop, ngettext_lazy

AUTH_WORDS = (
    gettext_noop("The two password fields didn’t match."),
    gettext_noop("Enter the same password as before, for verification."),
    gettext_noop("Please enter a correct %(username)s and password. Note that both fields "
                 "may be case-sensitive."),
    gettext_noop("The password is too similar to the %(verbose_name)s."),
    gettext_noop("Your password can’t be too similar to your other personal information."),
    gettext_noop("This password is too common."),
    gettext_noop("Your password can’t be a commonly used password."),
    gettext_noop("This password is entirely numeric."),
    gettext_noop("Your password can’t be entirely numeric."),
    gettext_noop("Email"),
)

AUTH_PLURALS = (
    ngettext_lazy("This password is too short. It must contain at least %d character.",
                  "This password is too short. It must contain at least %d characters.", "n"),
    ngettext_lazy("Your password must contain at least %(min_length)d character.",
                  "Your password must contain at least %(min_length)d characters.", "n"),
)
