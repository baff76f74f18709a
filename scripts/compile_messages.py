#!/usr/bin/env python3
"""Compile every locale/*/LC_MESSAGES/*.po into its .mo without GNU gettext.

Django's `compilemessages` needs the `msgfmt` binary, which a fresh machine may
not have; this pure-Python compiler lets `make run` work anywhere. Like GNU
msgfmt it drops fuzzy, obsolete and untranslated entries (the header is kept
even when marked fuzzy). The .mo it writes has no hash table, which gettext
readers do not need, so its bytes differ from msgfmt's: compare catalogues
with `read_po`/`read_mo`, never bytes.

Usage:
    python scripts/compile_messages.py          # (re)write .mo files whose catalogue changed
    python scripts/compile_messages.py --check  # exit 1 if any .mo is missing or stale
"""

from __future__ import annotations

import argparse
import ast
import struct
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
MO_MAGIC = 0x950412DE
CONTEXT_SEPARATOR = "\x04"

Catalogue = dict[str, str]


class PoSyntaxError(ValueError):
    pass


def _unquote(text: str, path: Path, lineno: int) -> str:
    text = text.strip()
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        raise PoSyntaxError(f"{path}:{lineno}: expected a quoted string, got {text!r}")
    # PO strings use C escapes, which a Python string literal understands too.
    return ast.literal_eval(text)


def _without_creation_date(header: str) -> str:
    # GNU msgfmt leaves POT-Creation-Date out of the .mo, and makemessages bumps it on
    # every run; dropping it keeps our .mo equal to msgfmt's and stable across runs.
    lines = header.split("\n")
    return "\n".join(line for line in lines if not line.startswith("POT-Creation-Date:"))


def read_po(path: Path) -> Catalogue:
    """Parse a .po file into the key -> translation mapping a .mo would hold.

    Keys follow the .mo conventions: "context\\x04msgid" for msgctxt, and
    "msgid\\0msgid_plural" -> "form0\\0form1..." for plurals.
    """
    catalogue: Catalogue = {}
    entry: dict[str, object] = {}
    field: str | None = None
    fuzzy = False

    def finish() -> None:
        nonlocal entry, field, fuzzy
        if "msgid" in entry:
            msgid = entry["msgid"]
            key = msgid if "msgid_plural" not in entry else f"{msgid}\0{entry['msgid_plural']}"
            if "msgctxt" in entry:
                key = f"{entry['msgctxt']}{CONTEXT_SEPARATOR}{key}"
            if "msgid_plural" in entry:
                forms = entry.get("msgstr_plural", {})
                assert isinstance(forms, dict)
                value = "\0".join(forms[i] for i in sorted(forms))
                translated = bool(forms) and all(forms.values())
            else:
                value = str(entry.get("msgstr", ""))
                translated = bool(value)
            is_header = key == ""
            if is_header:
                value = _without_creation_date(value)
            if is_header or (translated and not fuzzy):
                catalogue[key] = value
        entry, field, fuzzy = {}, None, False

    lines = path.read_text(encoding="utf-8").splitlines()
    for lineno, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#~"):
            continue  # obsolete entry
        if line.startswith("#"):
            # A comment starts a new entry if the previous one already has its msgstr.
            if field is not None and field.startswith("msgstr"):
                finish()
            if line.startswith("#,") and "fuzzy" in [flag.strip() for flag in line[2:].split(",")]:
                fuzzy = True
            continue
        if line.startswith('"'):
            if field is None:
                raise PoSyntaxError(f"{path}:{lineno}: continuation line outside an entry")
            text = _unquote(line, path, lineno)
            if field.startswith("msgstr["):
                index = int(field[7:-1])
                entry["msgstr_plural"][index] += text  # type: ignore[index]
            else:
                entry[field] = str(entry[field]) + text
            continue
        keyword, _, rest = line.partition(" ")
        if keyword in ("msgctxt", "msgid") and field in ("msgid", "msgid_plural"):
            # What msgfmt and msgmerge refuse (a union merge of two branches can
            # leave it): caught here, not later by `make messages`.
            raise PoSyntaxError(f"{path}:{lineno}: the entry above has no msgstr")
        if keyword in ("msgctxt", "msgid") and field is not None and field.startswith("msgstr"):
            finish()
        if keyword == "msgctxt" or keyword == "msgid" or keyword == "msgid_plural":
            entry[keyword] = _unquote(rest, path, lineno)
            field = keyword
        elif keyword == "msgstr":
            entry["msgstr"] = _unquote(rest, path, lineno)
            field = "msgstr"
        elif keyword.startswith("msgstr[") and keyword.endswith("]"):
            index = int(keyword[7:-1])
            entry.setdefault("msgstr_plural", {})[index] = _unquote(rest, path, lineno)  # type: ignore[index]
            field = keyword
        else:
            raise PoSyntaxError(f"{path}:{lineno}: unexpected line {raw!r}")
    finish()
    return catalogue


def mo_bytes(catalogue: Catalogue) -> bytes:
    """Serialise a catalogue to GNU .mo format (little-endian, no hash table)."""
    keys = sorted(catalogue)
    ids = b""
    strs = b""
    offsets = []
    for key in keys:
        key_bytes = key.encode("utf-8")
        value_bytes = catalogue[key].encode("utf-8")
        offsets.append((len(ids), len(key_bytes), len(strs), len(value_bytes)))
        ids += key_bytes + b"\0"
        strs += value_bytes + b"\0"
    header_size = 7 * 4
    count = len(keys)
    ids_table = header_size
    strs_table = ids_table + count * 8
    ids_start = strs_table + count * 8
    strs_start = ids_start + len(ids)
    table = []
    for id_offset, id_length, _, _ in offsets:
        table += [id_length, ids_start + id_offset]
    for _, _, str_offset, str_length in offsets:
        table += [str_length, strs_start + str_offset]
    header = struct.pack("<7I", MO_MAGIC, 0, count, ids_table, strs_table, 0, 0)
    return header + struct.pack(f"<{len(table)}I", *table) + ids + strs


def read_mo(path: Path) -> Catalogue:
    """Parse a .mo file (either byte order, with or without hash table)."""
    data = path.read_bytes()
    magic = struct.unpack("<I", data[:4])[0]
    if magic == MO_MAGIC:
        order = "<"
    elif struct.unpack(">I", data[:4])[0] == MO_MAGIC:
        order = ">"
    else:
        raise ValueError(f"{path}: not a .mo file")
    _, _, count, ids_table, strs_table = struct.unpack(f"{order}5I", data[:20])
    catalogue: Catalogue = {}
    for i in range(count):
        id_entry = ids_table + 8 * i
        str_entry = strs_table + 8 * i
        id_length, id_offset = struct.unpack(f"{order}2I", data[id_entry : id_entry + 8])
        str_length, str_offset = struct.unpack(f"{order}2I", data[str_entry : str_entry + 8])
        key = data[id_offset : id_offset + id_length].decode("utf-8")
        catalogue[key] = data[str_offset : str_offset + str_length].decode("utf-8")
    return catalogue


def po_files(root: Path = REPO_ROOT) -> list[Path]:
    return sorted((root / "locale").glob("*/LC_MESSAGES/*.po"))


def stale_catalogues(root: Path = REPO_ROOT) -> list[Path]:
    """The .po files whose .mo is missing or holds a different catalogue."""
    stale = []
    for po in po_files(root):
        mo = po.with_suffix(".mo")
        if not mo.exists() or read_mo(mo) != read_po(po):
            stale.append(po)
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report stale .mo files")
    args = parser.parse_args(argv)
    stale = stale_catalogues()
    if args.check:
        for po in stale:
            print(f"stale or missing: {po.with_suffix('.mo').relative_to(REPO_ROOT)}")
        return 1 if stale else 0
    for po in stale:
        po.with_suffix(".mo").write_bytes(mo_bytes(read_po(po)))
        print(f"compiled {po.relative_to(REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
