"""Errors of the Kubernetes API: an `ApiError` is answered as a `Status` object with its HTTP code."""


class ApiError(Exception):
    def __init__(self, code, reason, message, details=None):
        super().__init__(message)
        self.code, self.reason, self.message, self.details = code, reason, message, details

    def status(self):
        out = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": self.message,
               "reason": self.reason, "code": self.code}
        if self.details:
            out["details"] = self.details
        return out


def details(kind, name=None):
    d = {"kind": kind.resource}
    if name:
        d["name"] = name
    if kind.group:
        d["group"] = kind.group
    return d


def qualified(kind):
    return f"{kind.resource}.{kind.group}" if kind.group else kind.resource


def not_found(kind, name):
    return ApiError(404, "NotFound", f'{qualified(kind)} "{name}" not found', details(kind, name))


def invalid(kind, name, causes):
    msg = "; ".join(f"{f}: {m}" for f, m in causes)
    if len(causes) > 1:
        msg = f"[{msg}]"
    return ApiError(422, "Invalid", f'{kind.kind}{"." + kind.group if kind.group else ""} "{name}" is invalid: {msg}',
                    {**details(kind, name), "kind": kind.kind,
                     "causes": [{"reason": "FieldValueInvalid", "message": m, "field": f} for f, m in causes]})


def bad_request(message):
    return ApiError(400, "BadRequest", message)


def conflict(kind, name, why="the object has been modified; please apply your changes to the latest version and "
                             "try again"):
    return ApiError(409, "Conflict", f'Operation cannot be fulfilled on {qualified(kind)} "{name}": {why}',
                    details(kind, name))
