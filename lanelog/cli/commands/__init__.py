"""One module per `lanelog` command: read its options, call one library function, print.

The group (lanelog.cli.group) names each command by its module and imports it when it
runs, so nothing here is imported by name: the package exports nothing.
"""

__all__: list[str] = []
