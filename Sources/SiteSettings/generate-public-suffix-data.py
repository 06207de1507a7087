#!/usr/bin/env python3
"""Generates Sources/SiteSettings/PublicSuffixData.swift from a Public Suffix List `.dat` file.

Usage:
    python3 Sources/SiteSettings/generate-public-suffix-data.py /usr/share/publicsuffix/public_suffix_list.dat \
        > Sources/SiteSettings/PublicSuffixData.swift
    python3 Sources/SiteSettings/generate-public-suffix-data.py --version 20230209 FILE > ...

The list's version is taken from --version, else from a `// VERSION:` line in the file, else
from the file's modification date (the Debian package keeps the upstream date there).

The output is one raw string literal that `PublicSuffixList` reads in place, so a process pays
nothing at start. Its layout, which `PublicSuffixList.init(parsing:)` rebuilds identically:

1. Key lines, in the order of their labels read right to left ("com" before "blogspot.com").
   Each line is one flag digit followed by a key and "\n". A key is a rule's name with "!" and a
   leading "*." removed; the digit is a bit set: 1 = the key is a rule, 2 = "*.key" is a rule,
   4 = "!key" is a rule, 0 = no rule, the key is only a suffix of a longer key. Every suffix of a
   key is also a key, so a lookup can stop at the first suffix of the host that is not one.
2. At byte `tableOffset`, an open-addressing hash table of `slotCount` slots (a power of two, at
   least twice the number of keys), 64 slots per row, rows separated by "\n". A slot is the byte
   offset of a key line's flag digit in `slotWidth` lower-case hex digits, or `slotWidth` dashes
   when empty. A key's first slot is FNV-1a (32 bits) over the key's bytes taken from LAST to
   FIRST, masked with slotCount - 1; collisions go to the next slot (wrapping around). Hashing
   backwards lets a lookup extend the hash label by label from the right end of a host.

Rules are canonicalized first: lower case, and a label containing non-ASCII characters becomes
"xn--" followed by its RFC 3492 Punycode encoding.

Python 3 standard library only.
"""

import argparse
import datetime
import hashlib
import os
import re
import sys

SLOTS_PER_ROW = 64
FNV_OFFSET_BASIS = 0x811C9DC5
FNV_PRIME = 0x01000193
FLAG_RULE = 1
FLAG_WILDCARD = 2
FLAG_EXCEPTION = 4
ALLOWED_LABEL_BYTES = set(b"abcdefghijklmnopqrstuvwxyz0123456789-_")


class RuleError(Exception):
    pass


def fnv1a_reversed(data: bytes) -> int:
    """FNV-1a (32 bits) over `data` read from its last byte to its first."""
    h = FNV_OFFSET_BASIS
    for byte in reversed(data):
        h = ((h ^ byte) * FNV_PRIME) & 0xFFFFFFFF
    return h


def canonical_label(label: str) -> str:
    if any(ord(c) > 0x7F for c in label):
        try:
            label = "xn--" + label.encode("punycode").decode("ascii")
        except UnicodeError as error:
            raise RuleError(f"label \"{label}\" cannot be encoded as punycode: {error}")
    if not label:
        raise RuleError("it has an empty label")
    if label == "*":
        raise RuleError("\"*\" may only be the whole leftmost label of a rule that is not an exception, before a name")
    if len(label) > 63:
        raise RuleError(f"label \"{label}\" is longer than 63 bytes")
    if not set(label.encode("ascii")) <= ALLOWED_LABEL_BYTES:
        raise RuleError(f"label \"{label}\" has a character other than a-z, 0-9, \"-\" or \"_\"")
    return label


def parse_rule(rule: str):
    """Returns (key, flag) for one rule, e.g. "*.ck" -> ("ck", FLAG_WILDCARD)."""
    rule = rule.lower()
    exception = rule.startswith("!")
    if exception:
        rule = rule[1:]
    labels = rule.split(".")
    wildcard = labels[0] == "*"
    if wildcard:
        labels = labels[1:]
        if exception or not labels:
            raise RuleError(
                "\"*\" may only be the whole leftmost label of a rule that is not an exception, before a name"
            )
    if exception and len(labels) < 2:
        raise RuleError("an exception rule needs at least two labels")
    key = ".".join(canonical_label(label) for label in labels)
    if len(key) > 253:
        raise RuleError("name is longer than 253 bytes")
    if wildcard:
        return key, FLAG_WILDCARD
    return key, FLAG_EXCEPTION if exception else FLAG_RULE


def read_rules(text: str):
    """Returns ({key: flags}, rule count) for a list in the publicsuffix.org format."""
    flags = {}
    rules = set()
    for number, line in enumerate(text.split("\n"), start=1):
        fields = line.split()
        if not fields or fields[0].startswith("//"):
            continue
        try:
            key, flag = parse_rule(fields[0])
        except RuleError as error:
            sys.exit(f"line {number}: invalid rule \"{fields[0]}\": {error}")
        rules.add((key, flag))
        flags[key] = flags.get(key, 0) | flag
    if not rules:
        sys.exit("the list has no rules")
    for key in list(flags):
        labels = key.split(".")
        for start in range(1, len(labels)):
            flags.setdefault(".".join(labels[start:]), 0)
    return flags, len(rules)


def layout(flags):
    """Returns (text, table offset, slot count, slot width) of the data literal."""
    keys = sorted(flags, key=lambda key: key.split(".")[::-1])
    lines = []
    offsets = []
    offset = 0
    for key in keys:
        line = f"{flags[key]}{key}\n"
        offsets.append(offset)
        lines.append(line)
        offset += len(line)
    table_offset = offset
    slot_count = SLOTS_PER_ROW
    while slot_count < 2 * len(keys):
        slot_count *= 2
    slot_width = max(1, len(f"{offsets[-1]:x}"))
    slots = ["-" * slot_width] * slot_count
    mask = slot_count - 1
    for key, key_offset in zip(keys, offsets):
        index = fnv1a_reversed(key.encode("ascii")) & mask
        while slots[index][0] != "-":
            index = (index + 1) & mask
        slots[index] = f"{key_offset:0{slot_width}x}"
    rows = [
        "".join(slots[start:start + SLOTS_PER_ROW])
        for start in range(0, slot_count, SLOTS_PER_ROW)
    ]
    return "".join(lines) + "\n".join(rows), table_offset, slot_count, slot_width


def list_version(path: str, text: str, given: str | None):
    if given:
        return given, "given with --version"
    match = re.search(r"^//\s*VERSION:\s*(\S+)", text, re.MULTILINE)
    if match:
        return match.group(1), "from the file's VERSION line"
    modified = datetime.datetime.fromtimestamp(os.stat(path).st_mtime, datetime.timezone.utc)
    return modified.strftime("%Y%m%d"), "the file's modification date"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("file", help="the list, e.g. /usr/share/publicsuffix/public_suffix_list.dat")
    parser.add_argument("--version", help="the list's version or date, e.g. 20230209")
    arguments = parser.parse_args()

    with open(arguments.file, "rb") as source:
        raw = source.read()
    text = raw.decode("utf-8")
    flags, rule_count = read_rules(text)
    data, table_offset, slot_count, slot_width = layout(flags)
    if '"""#' in data:
        sys.exit("the data would end the raw string literal")
    version, version_source = list_version(arguments.file, text, arguments.version)

    out = sys.stdout
    out.write(
        f"""// Public Suffix List data compiled into SiteSettings.
//
// Source: {arguments.file}
// Version: {version} ({version_source})
// SHA-256 of the source: {hashlib.sha256(raw).hexdigest()}
// Rules: {rule_count}, ICANN and private sections; {len(flags)} keys.
//
// generated by Sources/SiteSettings/generate-public-suffix-data.py; do not edit.
// The layout of `text` is described at the top of that script.

/// The Public Suffix List as one string literal that `PublicSuffixList` reads in place.
enum PublicSuffixData {{
    /// Number of distinct rules in the source list.
    static var ruleCount: Int {{ {rule_count} }}
    /// Byte offset of the hash table in `text`; the key lines come before it.
    static var tableOffset: Int {{ {table_offset} }}
    /// Number of hash table slots, a power of two.
    static var slotCount: Int {{ {slot_count} }}
    /// Number of hex digits in a slot.
    static var slotWidth: Int {{ {slot_width} }}
    /// Length of `text` in bytes.
    static var byteCount: Int {{ {len(data)} }}

    static var text: StaticString {{
        #\"\"\"
"""
    )
    out.write(data)
    out.write('\n"""#\n    }\n}\n')


if __name__ == "__main__":
    main()
