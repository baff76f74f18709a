"""Where the cursor starts on an account form."""

from django import template

register = template.Library()


@register.filter
def focus_first_error(form):
    """The form, its first field with an error holding the autofocus.

    Django's forms put it on their first field (the username of sign-up): a
    form sent back with "the two passwords didn't match" opened at the top,
    the error below the fold of a phone, and nothing said where to look."""
    invalid = [name for name in form.fields if form.errors.get(name)]
    if invalid:
        for name, field in form.fields.items():
            if name == invalid[0]:
                field.widget.attrs["autofocus"] = True
            else:
                field.widget.attrs.pop("autofocus", None)
    return form
