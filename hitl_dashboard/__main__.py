import sys

from hitl_dashboard.cli.entry import main

sys.exit(main())
