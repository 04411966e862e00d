"""Running the command line in the test's own process, as the tests of this package do."""

from __future__ import annotations

from frontier_cli.commands import main


def run_cli(capsys, *argv):
    """``frontier ARGV...`` in this process: its exit status, standard output and error."""
    try:
        code = main(list(argv))
    except SystemExit as exit:  # argparse's usage errors and --help
        code = exit.code
    out, err = capsys.readouterr()
    return code, out, err
