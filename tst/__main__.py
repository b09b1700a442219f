"""`python -m tst ...` runs the command-line interface (tst/cli/)."""

from tst.cli import main

if __name__ == "__main__":
    main()
