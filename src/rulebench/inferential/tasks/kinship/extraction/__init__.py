"""Reading a kinship label out of a reply (clutrr, clutrr-cf and the generated kinship task).

`labels` judges a reply; it first rewrites relation chains (`chains`), drops the asides that
explain a label (`asides`) and finds where the reply states its answer (`statements`).
"""
