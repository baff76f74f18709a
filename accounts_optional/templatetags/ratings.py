"""Numbers on Bengali pages in Bengali digits: ``{{ value|local_digits }}``.

The filter is now a template builtin (config/digits.py); this library keeps
``{% load ratings %}`` working for the templates that load it."""

from django import template

from config.digits import local_digits

register = template.Library()
register.filter("local_digits", local_digits)
