"""`python -m tccg`: see tccg/runner.py and tccg/README.md."""
import sys

from .runner import main

sys.exit(main())
