import sys

from hitl_dashboard.cli import main

sys.exit(main())
