"""python -m gpumeter report|compare|merge|env|lock|plot|run|history ...: the gpumeter command,
from the module."""
import sys

from . import main

sys.exit(main())
