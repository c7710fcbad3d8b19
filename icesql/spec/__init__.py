"""The Iceberg spec model: pure values and functions, no files, no SQL.

``types`` (data types, Appendix C JSON), ``values`` (the Python value convention and the
Appendix D serializations), ``schema``, ``transforms`` (partition transforms, Appendix B
hashing), ``partitioning``, ``sorting``, ``name_mapping``, ``arrow`` (Iceberg <-> Arrow
types with field ids), and the records the manifests hold: ``content_file`` (data and delete
files) and ``manifest_file`` (a manifest list's rows). The bottom layer: it imports no other
icesql package (``pyproject.toml``'s import contract). Import from the submodules; this
package re-exports nothing so that importing the light modules does not pull in pyarrow.
"""
