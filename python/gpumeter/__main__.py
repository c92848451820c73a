"""python -m gpumeter report|compare|merge|env|lock|plot|run ...: the gpumeter command, from the
module."""
import sys

from . import main

sys.exit(main())
