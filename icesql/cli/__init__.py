"""The interactive shell and script runner behind the ``icesql`` command.

``icesql.shell`` parses the command line and connects; everything after that lives here, one
job per module: ``formatting`` (result sets as text in each output mode), ``output`` (where text
goes: stdout, ``.output`` files, the pager), ``diagnostics`` (errors with a caret),
``script`` (splitting input into statements and meta-commands), ``runner`` (running them,
interruptibly), ``meta`` (the dot-commands), ``completion`` and ``prompt`` (the interactive
prompt on prompt_toolkit, imported only at a terminal), ``app`` (the command-line options).

A front like ``icesql.dbapi``: it talks to the engine only through the PEP 249 connection.
"""
