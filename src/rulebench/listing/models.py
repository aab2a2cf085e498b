"""The model providers a spec (`provider/name`) can name, as `rulebench models` shows them."""

from rulebench.listing.entry import Listed


class ListedProvider(Listed):
    """A built-in model provider and how to install its library."""

    name: str
    description: str
    example: str
    """A spec that names one of its models."""
    install: str
    """The pip command that installs its library, or "included"."""


def list_models() -> list[ListedProvider]:
    """The built-in providers; a plugin's are in `list_plugins`."""
    from rulebench.models.registry import PROVIDERS

    return [
        ListedProvider(
            name=name,
            description=provider.description,
            example=provider.example,
            install=f"pip install 'rulebench[{provider.extra}]'" if provider.extra else "included",
        )
        for name, provider in PROVIDERS.items()
    ]
