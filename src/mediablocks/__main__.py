"""``python -m mediablocks``: the same as the ``mediablocks`` command."""

import sys

from .cli import main

sys.exit(main())
