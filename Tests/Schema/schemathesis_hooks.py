"""Schemathesis hooks for Tests/Schema (loaded through SCHEMATHESIS_HOOKS).

The document's `q` pattern uses Unicode property escapes (`[\\p{L}\\p{N}]`, ECMA-262's `u`
dialect), which Python's `re` cannot compile, so no value could be generated for it. The
generator gets the same rule in Python's words instead: `[^\\W_]` is a Unicode letter or digit
there (in ECMA-262 it would be ASCII only, so the document keeps its own spelling).
"""
import copy
import re
import urllib.parse

import schemathesis
from schemathesis.core.parameters import ParameterLocation

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


# Rules across fields that the document states in words (DeviceBody, DeviceToken, Platform,
# QuietHours, Settings) but JSON Schema cannot express across a path parameter and a body: a token is an
# APNs one (hex) unless the platform said is android; environment is iOS-only; app and topic
# name the same thing; quiet hours start and end at different times; a subscription's
# notify_after and notify_before differ, and notify_before 00:00 needs a notify_after. Generated cases are made to keep them, so that a 400 for breaking one is not
# taken for "a valid request refused"; everything else stays as generated.
APNS_TOKEN = re.compile(r"^([0-9a-fA-F]{2}){8,100}$")
SOME_APNS_TOKEN = "0123456789abcdef0123456789abcdef"
TOKEN_BODIES = {"/register", "/add_location", "/remove_location", "/admin/push-test"}
BROWSER_KEYS = {
    "p256dh": "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
    "auth": "BTBZMqHH6r4Tts7J_aSIgg",
}


WEB_ID = re.compile(r"^web:[A-Za-z0-9_-]{22}$")


def _keep_device_rules(body, token_in_path=None):
    if body.get("platform") == "web" and token_in_path is None:
        # The existing app's routes take iOS and Android devices only.
        body.pop("platform")
    token = body.get("token", token_in_path)
    if isinstance(token, str) and WEB_ID.match(urllib.parse.unquote(token)):
        # A browser's id (answered by POST /v1/devices): on the existing app's routes no token,
        # on PUT /v1/devices/{id} a browser's, whatever platform was generated.
        if token_in_path is None:
            body["token"] = token = SOME_APNS_TOKEN
            body.pop("platform", None)
        else:
            body["platform"] = "web"
            body.pop("environment", None)
    elif body.get("platform") == "web":
        # A browser is registered by POST /v1/devices alone: any other id is not a browser's.
        body.pop("platform")
    platform = body.get("platform")
    if platform in (None, "ios") and isinstance(token, str) and not APNS_TOKEN.match(token):
        body["platform"] = platform = "android"
    if platform == "android":
        body.pop("environment", None)
    if body.get("app") is not None and body.get("topic") is not None and body["app"] != body["topic"]:
        body.pop("topic")
    quiet = body.get("quiet_hours")
    if isinstance(quiet, dict) and quiet.get("start") is not None and quiet.get("start") == quiet.get("end"):
        # start and end must differ (DeviceBody, QuietHours).
        quiet["end"] = "07:00" if quiet["start"] != "07:00" else "22:00"


def _keep_window_rules(body):
    settings = body.get("settings")
    if not isinstance(settings, dict):
        return
    after, before = settings.get("notify_after"), settings.get("notify_before")
    if before is not None and before == after:
        # notify_after and notify_before must differ (Settings).
        settings["notify_before"] = "22:00" if after != "22:00" else "08:00"
    elif before == "00:00" and after is None:
        # notify_before 00:00 alone is an empty window (Settings).
        settings["notify_after"] = "16:00"


def _keep_browser_rules(body):
    # A subscription the server takes: an allowed push service (the test server's private one,
    # which is not resolved) and a key on the curve (RFC 8291's example).
    body["subscription"] = {"endpoint": "https://127.0.0.1:9/push/schema", "expirationTime": None, "keys": BROWSER_KEYS}
    quiet = body.get("quiet_hours")
    if isinstance(quiet, dict) and quiet.get("start") is not None and quiet.get("start") == quiet.get("end"):
        quiet["end"] = "07:00" if quiet["start"] != "07:00" else "22:00"


@schemathesis.hook
def before_call(context, case, kwargs):
    # Cases made from values the server answered (a browser's id reused as a token) do not
    # pass through map_case: the same rules, just before they are sent.
    meta = getattr(case, "meta", None)
    if not isinstance(case.body, dict) or (meta is not None and meta.is_negative_at(ParameterLocation.BODY)):
        return
    path = case.operation.path
    if path == "/v1/devices":
        _keep_browser_rules(case.body)
    elif path in TOKEN_BODIES:
        _keep_device_rules(case.body)
    elif path == "/v1/devices/{token}" and case.operation.method.upper() == "PUT":
        _keep_device_rules(case.body, token_in_path=(case.path_parameters or {}).get("token"))


@schemathesis.hook
def map_case(context, case):
    path = case.operation.path
    if isinstance(case.body, dict):
        # Generated cases may share nested objects: a rule kept in one must not change another.
        case.body = copy.deepcopy(case.body)
    body = case.body if isinstance(case.body, dict) else None
    meta = getattr(case, "meta", None)
    if body is not None and meta is not None and meta.is_negative_at(ParameterLocation.BODY):
        # A body generated to break the schema is sent as generated: keeping a rule here could
        # remove the very member that breaks it (an invalid `environment` on an Android device,
        # an invalid `topic` beside `app`), and a valid body would then be taken for an invalid
        # one accepted.
        body = None
    if path in TOKEN_BODIES and body is not None:
        _keep_device_rules(body)
    elif path == "/v1/devices/{token}/subscriptions" and body is not None:
        _keep_window_rules(body)
    elif path == "/v1/devices" and body is not None:
        _keep_browser_rules(body)
    elif path == "/v1/devices/{token}" and case.operation.method.upper() == "PUT":
        token = (case.path_parameters or {}).get("token")
        if body is not None:
            _keep_device_rules(body, token_in_path=token)
        elif isinstance(token, str) and not APNS_TOKEN.match(token):
            case.path_parameters["token"] = SOME_APNS_TOKEN
    return case
