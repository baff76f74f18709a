"""Numbers on Bengali pages in Bengali digits: ``{{ value|local_digits }}``."""

from django import template
from django.utils.translation import get_language

register = template.Library()

BN_DIGITS = str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯")


@register.filter
def local_digits(value) -> str:
    text = str(value)
    if (get_language() or "").startswith("bn"):
        return text.translate(BN_DIGITS)
    return text
