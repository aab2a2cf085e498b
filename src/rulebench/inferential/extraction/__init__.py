"""Answer extraction and judging per task, in `paper` and `robust` modes.

`paper` reproduces the released scorer's decisions, quirks included; `robust` fixes each quirk
(each fix named and tested).
"""
