"""Prompt templates, one module per task, in our own words.

They follow the structure of the paper's appendix C: task line, (counterfactual line), numbered
rules, demonstrations, the question, and the answer format the task's extractor expects.
"""
