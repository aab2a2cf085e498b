"""IRFT: training data from the rule generators and LoRA tuning (trl, peft) on top of them.

Sits beside the two benchmark families: it uses them and the engine, and they never import it.
"""
