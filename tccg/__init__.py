"""TCCG benchmark runner for gettpy: `python -m tccg` (see tccg/README.md)."""
