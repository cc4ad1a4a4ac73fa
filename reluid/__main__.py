from reluid.cli.main import entry

entry()
