"""The playground: play a scenario turn by turn against a model, save the case, share it.

It also replays collected cases against another model, in the background.
"""
