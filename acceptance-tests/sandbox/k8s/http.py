"""HTTP details of the Kubernetes API: JSON responses, request bodies (JSON, or YAML for apply patches), label and
field selectors, JSON merge patches."""
import copy
import json
import re

import yaml
from werkzeug.wrappers import Response

from .errors import ApiError, bad_request


def json_response(body, code=200):
    return Response(json.dumps(body), status=code, content_type="application/json")


def parse_body(request, yaml_ok=True):
    raw = request.get_data()
    ctype = (request.mimetype or "application/json").lower()
    if "protobuf" in ctype:
        raise ApiError(415, "UnsupportedMediaType", "the body of the request was in an unknown format - accepted "
                                                    "media types include: application/json, application/yaml")
    try:
        body = json.loads(raw or b"null")
    except ValueError:
        if not yaml_ok:
            raise bad_request("the body of the request is not valid JSON") from None
        try:
            body = yaml.safe_load(raw)
        except yaml.YAMLError as e:
            raise bad_request(f"error decoding YAML: {e}") from None
    if not isinstance(body, dict):
        raise bad_request("the body of the request must be a JSON object")
    return body


def label_selector_matches(selector, labels):
    for term in filter(None, (t.strip() for t in (selector or "").split(","))):
        m = re.fullmatch(r"([^!=\s]+)\s*(==|=|!=)\s*(\S*)", term)
        if m:
            k, op, v = m.groups()
            if (labels.get(k) == v) != (op != "!="):
                return False
            continue
        m = re.fullmatch(r"([^\s]+)\s+(in|notin)\s+\(([^)]*)\)", term)
        if m:
            k, op, vals = m.group(1), m.group(2), {x.strip() for x in m.group(3).split(",")}
            if (labels.get(k) in vals) != (op == "in"):
                return False
            continue
        if term.startswith("!"):
            if term[1:] in labels:
                return False
        elif term not in labels:
            return False
    return True


def field_selector_matches(selector, obj):
    for term in filter(None, (t.strip() for t in (selector or "").split(","))):
        m = re.fullmatch(r"(metadata\.name|metadata\.namespace)\s*(==|=|!=)\s*(\S*)", term)
        if not m:
            raise bad_request(f'"{term}" is not a known field selector: only "metadata.name", "metadata.namespace"')
        value = obj["metadata"].get(m.group(1).split(".")[1], "")
        if (value == m.group(3)) != (m.group(2) != "!="):
            return False
    return True



def merge_patch(target, patch):
    """RFC 7386 JSON merge patch."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    if not isinstance(target, dict):
        target = {}
    for k, v in patch.items():
        if v is None:
            target.pop(k, None)
        else:
            target[k] = merge_patch(target.get(k), v)
    return target
