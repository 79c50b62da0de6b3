# A package, so that its test modules' names (cli.test_checkpoint, ...) do not
# clash with tests/python's in one pytest session.
