"""URL credentials and echoed secrets are hidden the same way wherever they are stored or shown."""

from rulebench.core.credentials import REDACTED, redact_url, redact_url_credentials, scrub_secrets


def test_redact_url_credentials_keeps_the_fact_of_credentials() -> None:
    assert redact_url_credentials("http://user:pw@h:1/v1") == "http://***@h:1/v1"
    assert redact_url_credentials("https://TOKEN@h/v1?q=a@b") == "https://***@h/v1?q=a@b"
    assert redact_url_credentials("http://a:b@c@h/v1") == "http://***@h/v1"
    assert redact_url_credentials("http://h:1/v1") == "http://h:1/v1"
    assert redact_url_credentials("http://h/v1?next=x@y") == "http://h/v1?next=x@y"
    assert redact_url_credentials("u:pw@h:1/v1") == "***@h:1/v1"  # no scheme: still redacted
    assert redact_url_credentials("http://u:pw@[::1") == "http://***@[::1"  # urlsplit would raise


def test_redact_url_drops_the_userinfo_entirely() -> None:
    assert redact_url("http://u:pw@h:1/v1") == "http://h:1/v1"
    assert redact_url("https://h/v1?next=x@y") == "https://h/v1?next=x@y"


def test_scrub_secrets_hides_every_secret_and_keeps_the_rest() -> None:
    text = "key sk-long-9f2 and its prefix sk-long in one reply"
    scrubbed = scrub_secrets(text, ("sk-long-9f2", "sk-long"))
    assert scrubbed == f"key {REDACTED} and its prefix {REDACTED} in one reply"
    assert scrub_secrets("nothing secret here", ("sk-long",)) == "nothing secret here"
    assert scrub_secrets("unchanged", ()) == "unchanged"
