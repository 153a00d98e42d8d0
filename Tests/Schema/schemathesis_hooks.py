"""Schemathesis hooks for Tests/Schema (loaded through SCHEMATHESIS_HOOKS).

The document's `q` pattern uses Unicode property escapes (`[\\p{L}\\p{N}]`, ECMA-262's `u`
dialect), which Python's `re` cannot compile, so no value could be generated for it. The
generator gets the same rule in Python's words instead: `[^\\W_]` is a Unicode letter or digit
there (in ECMA-262 it would be ASCII only, so the document keeps its own spelling).
"""
import schemathesis

DOCUMENT_PATTERN = "^[^\\p{Cc}]*[\\p{L}\\p{N}][^\\p{Cc}]*$"
PYTHON_PATTERN = "^[^\\x00-\\x1f\\x7f-\\x9f]*[^\\W_][^\\x00-\\x1f\\x7f-\\x9f]*$"


@schemathesis.hook
def before_load_schema(context, raw_schema):
    translated = 0
    for item in raw_schema.get("paths", {}).values():
        for operation in item.values():
            if not isinstance(operation, dict):
                continue
            for parameter in operation.get("parameters", []):
                schema = parameter.get("schema", {})
                if schema.get("pattern") == DOCUMENT_PATTERN:
                    schema["pattern"] = PYTHON_PATTERN
                    translated += 1
    # The document changed its pattern: translate the new one here too.
    assert translated, "the q pattern of docs/openapi.yaml is not the one this hook translates"
