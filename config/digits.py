"""Numbers as a Bengali page reads them: ``{{ value|local_digits }}``.

A template builtin (settings.TEMPLATES ``builtins``), so every template has it
without ``{% load %}``. On a Bengali page (the active language is bn) the
ASCII digits of the value become Bengali digits; elsewhere it is unchanged.
As a block it converts a whole translated sentence without changing its
msgid: ``{% filter local_digits %}{% blocktranslate count n=x %}...{% endfilter %}``;
never wrap markup that has URLs or attributes in it (they would change too).
Dates: ``{{ when|date:"j M, H:i"|local_digits }}``: Django's bn formats and
month names, then the digits.
"""

from django import template
from django.utils.safestring import SafeData, mark_safe
from django.utils.translation import get_language

register = template.Library()

BN_DIGITS = str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯")


def to_local_digits(text: str) -> str:
    if (get_language() or "").startswith("bn"):
        return text.translate(BN_DIGITS)
    return text


@register.filter(is_safe=True)
def local_digits(value) -> str:
    if value is None:
        return ""
    converted = to_local_digits(str(value))
    # Digits are not markup: what was safe stays safe (the block form).
    return mark_safe(converted) if isinstance(value, SafeData) else converted
