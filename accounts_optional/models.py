# No models yet: guests play on their session alone.
