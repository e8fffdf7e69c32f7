"""The files students start from: ``python -m minigrad exercise N --stub > my_solution.py`` prints one."""
