import sys

from daskpad.cli import main

sys.exit(main())
