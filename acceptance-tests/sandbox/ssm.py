"""SSM in the sandbox: moto's documents, plus the Session Manager preferences document of seed_data/ssm.json.

`SSM-SessionManagerRunShell` is the document (type Session, JSON) that holds an account's Session Manager
preferences in a region; its `inputs.runAsEnabled` / `inputs.runAsDefaultUser` are the Run As setting.  AWS creates
it when preferences are first saved; moto has none, so the seed creates it (Run As off).

Fix: UpdateDocument without `DocumentVersion` updates the latest version, as in AWS (moto refused it).  As in AWS,
the new version is not the default until UpdateDocumentDefaultVersion; GetDocument without a version returns the
default one.
"""
import json

from .moto_adapter import SsmBackend, ssm_backend

_orig_update_document = SsmBackend.update_document


def _update_document(self, content, attachments, name, version_name, document_version, document_format,
                     target_type):
    return _orig_update_document(self, content, attachments, name, version_name, document_version or "$LATEST",
                                 document_format or "JSON", target_type)


def install():
    SsmBackend.update_document = _update_document


def apply_seed(data: dict, account: dict) -> dict:
    backend = ssm_backend(account["account_id"], account["region"])
    names = []
    for d in data.get("documents", []):
        content = d["Content"] if isinstance(d["Content"], str) else json.dumps(d["Content"], indent=4)
        backend.create_document(content=content, requires=None, attachments=None, name=d["Name"],
                                version_name=d.get("VersionName"), document_type=d["DocumentType"],
                                document_format=d.get("DocumentFormat", "JSON"), target_type=d.get("TargetType"),
                                tags=d.get("Tags"))
        names.append(d["Name"])
    return {"documents": names}
