"""Committed .mo files must say what their .po files say.

The .mo files are committed so a machine without GNU gettext can serve
translations; this keeps them honest. Catalogues are compared, not bytes, so a
.mo compiled by GNU msgfmt or by scripts/compile_messages.py both pass.
"""

import importlib.util
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent


def _load_compiler():
    spec = importlib.util.spec_from_file_location(
        "compile_messages", REPO_ROOT / "scripts" / "compile_messages.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


compiler = _load_compiler()
PO_FILES = compiler.po_files(REPO_ROOT)


def test_there_are_bengali_and_english_catalogues():
    languages = {po.parent.parent.name for po in PO_FILES}
    assert {"bn", "en"} <= languages


@pytest.mark.parametrize("po", PO_FILES, ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_committed_mo_matches_its_po(po):
    mo = po.with_suffix(".mo")
    assert mo.exists(), f"{mo} is missing: run `make compilemessages` and commit it"
    assert compiler.read_mo(mo) == compiler.read_po(po), (
        f"{mo} is out of date with {po.name}: run `make compilemessages` and commit it"
    )


def test_every_bengali_string_is_translated():
    po = REPO_ROOT / "locale" / "bn" / "LC_MESSAGES" / "django.po"
    text = po.read_text(encoding="utf-8")
    # msgstr "" followed by a blank line or EOF means untranslated (header excepted).
    entries = text.split("\n\n")[1:]
    untranslated = [e for e in entries if e.rstrip().endswith('msgstr ""')]
    assert not untranslated, f"untranslated Bengali entries: {untranslated}"


def test_compiler_round_trips_plurals_contexts_and_escapes(tmp_path):
    po = tmp_path / "x.po"
    po.write_text(
        'msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgctxt "dice"\nmsgid "Roll"\nmsgstr "চাল"\n\n'
        'msgid "one die"\nmsgid_plural "%(n)s dice"\nmsgstr[0] "একটি ছক্কা"\n'
        'msgstr[1] "%(n)sটি ছক্কা"\n\n'
        '#, fuzzy\nmsgid "Guess"\nmsgstr "আন্দাজ"\n\n'
        'msgid "Untranslated"\nmsgstr ""\n\n'
        'msgid "Say \\"hi\\"\\n"\nmsgstr ""\n"বলুন \\"হাই\\"\\n"\n',
        encoding="utf-8",
    )
    catalogue = compiler.read_po(po)
    assert catalogue == {
        "": "Content-Type: text/plain; charset=UTF-8\n",
        "dice\x04Roll": "চাল",
        "one die\x00%(n)s dice": "একটি ছক্কা\x00%(n)sটি ছক্কা",
        'Say "hi"\n': 'বলুন "হাই"\n',
    }
    mo = tmp_path / "x.mo"
    mo.write_bytes(compiler.mo_bytes(catalogue))
    assert compiler.read_mo(mo) == catalogue

    import gettext

    with open(mo, "rb") as handle:
        translations = gettext.GNUTranslations(handle)
    assert translations.pgettext("dice", "Roll") == "চাল"
    assert translations.ngettext("one die", "%(n)s dice", 3) == "%(n)sটি ছক্কা"


def test_an_entry_without_its_msgstr_is_refused_as_gettext_refuses_it(tmp_path):
    """A union merge of two branches once left a msgid with no msgstr: our
    compiler read on, and `make messages` (msgmerge) then failed on it."""
    po = tmp_path / "django.po"
    po.write_text('msgid ""\nmsgstr ""\n\nmsgid "Cups opened"\nmsgid "Sound"\nmsgstr "Sound"\n',
                  encoding="utf-8")
    with pytest.raises(compiler.PoSyntaxError, match=r"django.po:5: the entry above has no msgstr"):
        compiler.read_po(po)
