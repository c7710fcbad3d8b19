"""Iceberg's metadata files, read and written byte for byte as the spec (and Java) has them.

* ``table_metadata`` — the ``*.metadata.json`` document (v1-v3), views over its JSON;
  ``snapshots`` / ``statistics`` hold the small objects inside it; ``builder`` makes the
  next version.
* ``manifest_list`` — a snapshot's list of manifests (``ManifestFile`` rows, modelled in
  ``icesql.spec.manifest_file``).
* ``manifest`` — the data/delete file entries of one manifest (``DataFile``, modelled in
  ``icesql.spec.content_file``), with inheritance applied.
* ``puffin`` — Puffin footers and ``deletion-vector-v1`` blobs.
* ``parquet_footer`` — what a data file's Parquet footer says (field ids, row count, row
  groups, where each schema element ends), read without pyarrow: the scan checks files by
  it, the writer patches the footer it stitches by it.

Format code only: no planning, no SQL. Damaged files raise ``CorruptFileError`` naming the
file; missing files raise ``OperationalError`` (from ``icesql.io``).
"""
