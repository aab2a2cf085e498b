"""URL credentials, query values and echoed secrets are hidden the same way wherever they go."""

from hypothesis import given
from hypothesis import strategies as st

from rulebench.core.credentials import (
    REDACTED,
    UserInfo,
    query_start,
    query_values,
    redact_url,
    scrub_secrets,
)


def test_redact_url_keeps_the_fact_of_credentials() -> None:
    assert redact_url("http://user:pw@h:1/v1") == "http://***@h:1/v1"
    assert redact_url("https://TOKEN@h/v1?q=a@b") == "https://***@h/v1?q=***"
    assert redact_url("http://a:b@c@h/v1") == "http://***@h/v1"
    assert redact_url("http://h:1/v1") == "http://h:1/v1"
    assert redact_url("u:pw@h:1/v1") == "***@h:1/v1"  # no scheme: still redacted
    assert redact_url("http://u:pw@[::1") == "http://***@[::1"  # urlsplit would raise


def test_redact_url_drop_takes_the_userinfo_out_entirely() -> None:
    assert redact_url("http://u:pw@h:1/v1", "drop") == "http://h:1/v1"
    assert redact_url("https://h/v1?next=x@y", "drop") == "https://h/v1?next=***"


def test_redact_url_hides_every_query_value_and_the_fragment() -> None:
    assert redact_url("http://h/v1?api_key=sk-1") == "http://h/v1?api_key=***"
    assert redact_url("http://h/v1?a=1&b=&sk-bare#tok") == "http://h/v1?a=***&b=&***#***"
    assert redact_url("http://h/v1#frag?x=1") == "http://h/v1#***"
    assert redact_url("http://h/v1?") == "http://h/v1?"


def test_redact_url_redacts_each_url_of_a_comma_list() -> None:
    urls = "http://u:p@a/v1?key=k1, https://b/v1?key=k2,http://c/v1"
    assert redact_url(urls) == "http://***@a/v1?key=***, https://b/v1?key=***,http://c/v1"
    assert redact_url(urls, "drop") == "http://a/v1?key=***, https://b/v1?key=***,http://c/v1"


def test_query_values_and_start() -> None:
    assert query_values("http://h/v1?api_key=sk-1&v=2&flag#frag") == ("sk-1", "2", "flag", "frag")
    assert query_values("http://h/v1") == ()
    assert query_start("http://h/v1?k=1") == len("http://h/v1")
    assert query_start("http://h/v1") == len("http://h/v1")


# Secrets are upper case and hosts, paths and names lower case: a secret found in the
# redacted text can only have come from where a secret was.
_SECRET = st.text("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789-_.~%", min_size=4, max_size=24).map(
    lambda text: f"SK{text}"
)
_WORD = st.text("abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=10)


@st.composite
def _urls(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A URL with secrets in its userinfo, query values and fragment, and those secrets."""
    secrets: list[str] = []
    userinfo = ""
    if draw(st.booleans()):
        secrets.append(draw(_SECRET))
        userinfo = f"{draw(_WORD)}:{secrets[-1]}@"
    path = "".join(f"/{word}" for word in draw(st.lists(_WORD, max_size=3)))
    parts = []
    for name in draw(st.lists(_WORD, max_size=4)):
        secrets.append(draw(_SECRET))
        parts.append(f"{name}={secrets[-1]}" if draw(st.booleans()) else secrets[-1])
    query = f"?{'&'.join(parts)}" if parts else ""
    fragment = ""
    if draw(st.booleans()):
        secrets.append(draw(_SECRET))
        fragment = f"#{secrets[-1]}"
    scheme = draw(st.sampled_from(["http", "https"]))
    return f"{scheme}://{userinfo}{draw(_WORD)}.test:8000{path}{query}{fragment}", secrets


_MODES: list[UserInfo] = ["mark", "drop"]


@given(_urls(), _urls(), st.sampled_from(_MODES))
def test_no_secret_of_a_url_or_a_list_survives_redaction(
    first: tuple[str, list[str]], second: tuple[str, list[str]], userinfo: UserInfo
) -> None:
    for url, secrets in (first, (f"{first[0]}, {second[0]}", first[1] + second[1])):
        shown = redact_url(url, userinfo)
        assert not [secret for secret in secrets if secret in shown], shown
        assert redact_url(shown, userinfo) == shown  # a stored URL stays as it is
        assert shown.count("://") == url.count("://")


@given(_WORD, st.lists(_WORD, max_size=3))
def test_a_url_without_secrets_is_kept_as_it_is(host: str, path: list[str]) -> None:
    url = f"http://{host}.test:8000" + "".join(f"/{word}" for word in path)
    assert redact_url(url) == url == redact_url(url, "drop")


def test_scrub_secrets_hides_every_secret_and_keeps_the_rest() -> None:
    text = "key sk-long-9f2 and its prefix sk-long in one reply"
    scrubbed = scrub_secrets(text, ("sk-long-9f2", "sk-long"))
    assert scrubbed == f"key {REDACTED} and its prefix {REDACTED} in one reply"
    assert scrub_secrets("nothing secret here", ("sk-long",)) == "nothing secret here"
    assert scrub_secrets("unchanged", ()) == "unchanged"
