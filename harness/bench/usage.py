"""Usage errors of the bench tools (ab.py, loop_alone.py): one line on stderr, 'TOOL: message',
and exit status 2, as argparse's own errors, with TOOL the script's file name as argparse names
it."""
import argparse
import os
import sys


def bad_input(message):
    print(f'{os.path.basename(sys.argv[0])}: {message}', file=sys.stderr)
    sys.exit(2)


class OneLineParser(argparse.ArgumentParser):
    def error(self, message):
        bad_input(message)


def at_least_one(text):
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'{text} is not a whole number')
    if value < 1:
        raise argparse.ArgumentTypeError(f'{text} is below 1')
    return value
