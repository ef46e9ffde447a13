"""moto's dispatcher as the sandbox serves it: each host's service is looked up once and remembered, with moto's
own answer (moto looks it up on every request, under one lock, by listing its package directory)."""
import pytest
from moto.moto_server.werkzeug_app import DomainDispatcherApplication

from sandbox import moto_adapter

HOSTS = ["eks.us-west-2.amazonaws.com", "api.sagemaker.us-west-2.amazonaws.com", "iam.amazonaws.com",
         "sts.amazonaws.com", "kms.us-west-2.amazonaws.com", "moto_api", "nothing.example.com", None]


def test_each_hosts_service_is_motos_answer_and_looked_up_once(monkeypatch):
    app = moto_adapter.moto_server_app()
    expected = {host: DomainDispatcherApplication.get_backend_for_host(app, host) for host in HOSTS}
    assert (expected["eks.us-west-2.amazonaws.com"], expected["iam.amazonaws.com"]) == ("eks", "iam")
    assert {host: app.get_backend_for_host(host) for host in HOSTS} == expected

    def looked_up_again(self, host):
        pytest.fail(f"the service of {host!r} was looked up again")

    monkeypatch.setattr(DomainDispatcherApplication, "get_backend_for_host", looked_up_again)
    assert {host: app.get_backend_for_host(host) for host in HOSTS} == expected


def test_a_service_registered_later_is_seen():
    """`register_service` appends URL patterns (to the list moto's dispatcher holds): a host first unknown finds the
    service registered after."""
    app = moto_adapter.moto_server_app()
    host = "hyperpod-dispatcher-test.us-west-2.amazonaws.com"
    assert app.get_backend_for_host(host) is None
    patterns = moto_adapter.backend_index.backend_url_patterns
    patterns.append(("eks", moto_adapter.re.compile(r"https?://hyperpod-dispatcher-test\..*")))
    try:
        assert app.get_backend_for_host(host) == "eks"
    finally:
        patterns.pop()
