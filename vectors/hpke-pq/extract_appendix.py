#!/usr/bin/env python3
"""Turn the test-vector appendix of an HPKE document (kramdown source: "## suite" headings,
"### <Mode> Setup Information", "#### Encryptions", "#### Exported Values", each a ~~~ block of
"name: hex" lines, long values wrapped on the following lines) into JSON in the shape of
hpkewg/hpke-pq's test-vectors.json, keeping the Base (0) and PSK (1) modes of the KEMs given.

    extract_appendix.py DOC.md 'Test Vectors' 16,17,32 [TITLE_REGEX] > out.json

keeps the vectors of the KEM identifiers listed (decimal) under "# Test Vectors", and, with a
regular expression, only the "## " headings it matches.

Each encryption keeps its "sequence_number" (the appendices skip numbers); every other field
is copied as printed (lower-case hex; mode and identifiers as integers, L as an integer).
"""
import json
import re
import sys

FIELD = re.compile(r"^([A-Za-z_][A-Za-z_ ()=0-9]*):\s*(.*)$")
HEX = re.compile(r"^[0-9a-f]*$")


def blocks(lines):
    """Yield (heading path, list of lines) for each ~~~ block."""
    h2 = h3 = h4 = None
    inside = False
    body = []
    for line in lines:
        if line.startswith("~~~"):
            if inside:
                yield (h2, h3, h4), body
                body = []
            inside = not inside
            continue
        if inside:
            body.append(line.rstrip("\n"))
        elif line.startswith("#### "):
            h4 = line[5:].strip()
        elif line.startswith("### "):
            h3, h4 = line[4:].strip(), None
        elif line.startswith("## "):
            h2, h3, h4 = line[3:].strip(), None, None
    if inside:
        raise SystemExit("unterminated ~~~ block")


def records(body):
    """Split a block at blank lines into dicts of name -> value (continuations joined)."""
    out, cur, last = [], {}, None
    for line in body + [""]:
        if not line.strip():
            if cur:
                out.append(cur)
            cur, last = {}, None
            continue
        m = FIELD.match(line)
        if m:
            last = m.group(1)
            cur[last] = m.group(2).strip()
        elif last is not None and HEX.match(line.strip()):
            cur[last] += line.strip()
        else:
            raise SystemExit(f"cannot parse line: {line!r}")
    return out


def main():
    doc, section, kems = sys.argv[1], sys.argv[2], {int(k) for k in sys.argv[3].split(",")}
    title = re.compile(sys.argv[4] if len(sys.argv) > 4 else "")
    lines = open(doc, encoding="utf-8").read().split("\n")
    start = lines.index(f"# {section}")
    vectors, current = [], None
    for (h2, h3, h4), body in blocks(lines[start + 1:]):
        if h3 and h3.endswith("Setup Information") and h4 is None:
            (setup,) = records(body)
            current = None
            if int(setup["mode"]) not in (0, 1) or int(setup["kem_id"]) not in kems:
                continue
            if not title.match(h2):
                continue
            current = {"title": h2}
            for name, value in setup.items():
                if name in ("mode", "kem_id", "kdf_id", "aead_id"):
                    current[name] = int(value)
                else:
                    current[name.replace(" ", "_")] = value
            current["encryptions"], current["exports"] = [], []
            vectors.append(current)
        elif current is not None and h4 == "Encryptions":
            for r in records(body):
                current["encryptions"].append({
                    "sequence_number": int(r["sequence number"]),
                    "pt": r["pt"], "aad": r["aad"], "nonce": r["nonce"], "ct": r["ct"],
                })
        elif current is not None and h4 == "Exported Values":
            for r in records(body):
                current["exports"].append({
                    "exporter_context": r["exporter_context"],
                    "L": int(r["L"]),
                    "exported_value": r["exported_value"],
                })
    json.dump(vectors, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
