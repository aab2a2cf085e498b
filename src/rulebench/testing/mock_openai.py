"""`python -m rulebench.testing.mock_openai`: the mock OpenAI-compatible server, from a shell.

The server is `mock_server`; its options are `mock_cli`'s. This module only starts them, so
neither of those imports the other's caller.
"""

from rulebench.testing.mock_cli import main

if __name__ == "__main__":
    main()
