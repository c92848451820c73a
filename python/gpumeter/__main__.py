"""python -m gpumeter report|compare|merge|env|lock|plot ...: the gpumeter command, from the
module."""
import sys

from . import main

sys.exit(main())
