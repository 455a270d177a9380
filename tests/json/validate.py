#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Validates JSON documents against an imgpatch schema (JSON Schema 2020-12).

    validate.py SCHEMA DOC...    check SCHEMA itself, then every DOC against it
    validate.py SCHEMA           check SCHEMA only

A "$ref" to another file ("recipe.schema.json#/$defs/parameter") is looked
up beside SCHEMA, so the schemas keep relative "$id"s. Every error is printed
as "DOC: at $.path[0].field: message (schema: keyword path)". Exit status:
0 valid, 1 a document or the schema is invalid, 2 usage or read error.
"""

import json
import os
import sys

import jsonschema

# Debian 12's python3-jsonschema (4.10) resolves "$ref" with RefResolver;
# newer releases moved that to the "referencing" package.
try:
    import referencing
    import referencing.exceptions
    from referencing.jsonschema import DRAFT202012
except ImportError:
    referencing = None

MAX_ERRORS = 20


def load(path):
    """The JSON value in path; duplicate keys are an error, as they would
    make a document mean different things to different readers."""

    def no_duplicates(pairs):
        keys = [k for k, _ in pairs]
        for k in keys:
            if keys.count(k) > 1:
                raise ValueError("duplicate key %r" % k)
        return dict(pairs)

    with open(path, encoding="utf-8") as f:
        return json.load(f, object_pairs_hook=no_duplicates)


def json_path(parts):
    out = "$"
    for p in parts:
        out += "[%d]" % p if isinstance(p, int) else "." + str(p)
    return out


def validator_for(cls, schema, schema_dir):
    """A validator whose schemas named by a relative $id are read from
    schema_dir on demand, so one schema in progress there cannot break the
    others."""

    if referencing is not None:
        def retrieve(uri):
            name = os.path.basename(uri)
            if name != uri or not name.endswith(".schema.json"):
                raise referencing.exceptions.NoSuchResource(ref=uri)
            return DRAFT202012.create_resource(load(os.path.join(schema_dir, name)))

        return cls(schema, registry=referencing.Registry(retrieve=retrieve))

    base = "file://" + os.path.abspath(schema_dir) + "/"

    def retrieve_file(uri):
        path = uri[len("file://"):].split("#", 1)[0]
        if os.path.dirname(path) != os.path.abspath(schema_dir) or \
                not path.endswith(".schema.json"):
            raise jsonschema.exceptions.RefResolutionError("no schema %s" % uri)
        return load(path)

    resolver = jsonschema.RefResolver(base, schema, handlers={"file": retrieve_file})
    return cls(schema, resolver=resolver)


def unresolvable():
    """The exception a $ref that cannot be resolved raises."""
    if referencing is not None:
        return referencing.exceptions.Unresolvable
    return jsonschema.exceptions.RefResolutionError


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        sys.stderr.write(__doc__)
        return 2
    schema_path, docs = argv[1], argv[2:]
    try:
        schema = load(schema_path)
    except (OSError, ValueError) as e:
        print("%s: %s" % (schema_path, e))
        return 2

    cls = jsonschema.Draft202012Validator
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as e:
        print("%s: not a valid JSON Schema: at %s: %s" %
              (schema_path, json_path(e.absolute_path), e.message))
        return 1
    if schema.get("$schema") != "https://json-schema.org/draft/2020-12/schema":
        print("%s: $schema is not draft 2020-12" % schema_path)
        return 1

    validator = validator_for(cls, schema, os.path.dirname(schema_path) or ".")
    status = 0
    for doc_path in docs:
        try:
            doc = load(doc_path)
        except (OSError, ValueError) as e:
            print("%s: %s" % (doc_path, e))
            status = max(status, 2)
            continue
        try:
            errors = sorted(validator.iter_errors(doc),
                            key=lambda e: (list(map(str, e.absolute_path)), e.message))
        except unresolvable() as e:
            print("%s: %s: cannot resolve %s" % (doc_path, schema_path, e))
            return 2
        for e in errors[:MAX_ERRORS]:
            # A oneOf names its alternatives' failures only in context: the
            # deepest one says most about what is wrong.
            best = jsonschema.exceptions.best_match([e])
            print("%s: at %s: %s (schema: %s)" %
                  (doc_path, json_path(best.absolute_path), best.message,
                   "/".join(map(str, best.absolute_schema_path))))
        if len(errors) > MAX_ERRORS:
            print("%s: ... and %d more errors" % (doc_path, len(errors) - MAX_ERRORS))
        if errors:
            status = max(status, 1)
        else:
            print("%s: valid (%s)" % (doc_path, os.path.basename(schema_path)))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
