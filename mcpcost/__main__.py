from mcpcost.cli import entry

entry()
