"""Client output formats, one module each, chosen by what a file contains.

Every module exposes ``detect(doc) -> bool`` and ``parse(doc, path, line) ->
Measurement`` (or raises a diagnostic). ``sniff`` picks the module; the file's
name is never consulted.
"""
