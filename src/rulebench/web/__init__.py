"""The local web app (`rulebench serve`): the explorer of stored runs and live runs."""
